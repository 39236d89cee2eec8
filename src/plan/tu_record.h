// What the global graph tells the launcher about each TU it builds: one file
// for the whole graph, a line per TU.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "src/base/file_system.h"

namespace fastcuda {

/// The command the global graph builds a TU's object with, and the header
/// depfiles of its preprocess steps, so that the launcher, called by CMake
/// for the same object, can tell whether the graph's object is current.
struct TuRecord {
  std::string cwd;                    ///< where the command runs
  std::string command_hash;           ///< TuCommandHash of nvcc and its arguments, without depfile options
  std::vector<std::string> depfiles;  ///< absolute paths of the kept preprocess depfiles
  std::string source;  ///< the source that their shared header lists leave out (KeptHeadersSource)
  std::vector<std::string> captures;  ///< where the steps save what they print, in nvcc's order (may be none)
  /// With a whole-call cache lookup: its result file, and its kept depfile,
  /// which alone holds the headers after a hit (the preprocessing did not run).
  std::string cache_result;
  std::string cache_depfile;
  /// Absolute: the first file each step leaves (Landmark). A step that
  /// fails, or is stopped, leaves none, so that a TU whose last build did not
  /// reach its object has one missing, though its old object is still there.
  std::vector<std::string> landmarks;
};

/// What a record keeps of a command: a hash, where the command itself would
/// make every launcher read a file as large as the compile database.
std::string TuCommandHash(const std::vector<std::string>& command);

/// The records of a graph's TUs, each with its work dir, as their file holds
/// them: a line per TU, its key (the name of its work dir) and its record,
/// both JSON, its paths in the work dir relative to it, so that a launcher
/// parses its own short line alone.
std::string FormatTuRecords(const std::vector<std::pair<std::string, TuRecord>>& records);

/// The record of the TU whose work dir is `work_dir` in `text`
/// (FormatTuRecords); nullopt where there is none, or it is not a record.
std::optional<TuRecord> FindTuRecord(std::string_view text, const std::string& work_dir);

/// The record of the TU that writes `object` (absolute) in the global graph
/// at `graph_dir`; nullopt where it keeps none.
std::optional<TuRecord> ReadTuRecord(const FileSystem& fs, const std::string& graph_dir,
                                     const std::string& object);

}  // namespace fastcuda

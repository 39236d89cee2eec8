// What the global graph tells the launcher about each TU it builds.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace fastcuda {

/// The command the global graph builds a TU's object with, and the header
/// depfiles of its preprocess steps, so that the launcher, called by CMake
/// for the same object, can tell whether the graph's object is current.
struct TuRecord {
  std::string cwd;                    ///< where the command runs
  std::vector<std::string> command;   ///< nvcc and its arguments, without depfile options
  std::vector<std::string> depfiles;  ///< absolute paths of the kept preprocess depfiles
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

/// The record as its file holds it: JSON.
std::string FormatTuRecord(const TuRecord& record);

/// nullopt if the text is not a record.
std::optional<TuRecord> ParseTuRecord(const std::string& text);

}  // namespace fastcuda

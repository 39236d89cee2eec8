// Reading compile_commands.json and picking out the nvcc calls.
#pragma once

#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace fastcuda {

/// A compile database that cannot be read; the message names the file and
/// the position of the problem.
struct CompileDatabaseError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

/// One nvcc call from a compile database.
struct CompileEntry {
  std::string directory;              ///< absolute directory the command runs in
  std::string file;                   ///< the source, as the entry names it
  std::string output;                 ///< the object, relative to `directory` or absolute (else nvcc's name)
  std::vector<std::string> nvcc;      ///< nvcc and its arguments, any launcher prefix removed
  std::vector<std::string> launcher;  ///< the launcher prefix (ccache, sccache, ...), if any
  /// From a generator's manifest (`fastcuda ninja`): what the nvcc edge also
  /// waited for (its implicit and order-only inputs), which its steps wait for.
  std::vector<std::string> implicit_inputs;
  std::vector<std::string> order_only_inputs;
  /// From a generator's manifest: the edge had `deps = gcc`, so Ninja reads
  /// the nvcc depfile after the edge making the object and keeps its headers
  /// in its deps log (`ninja -t deps`) for that object.
  bool ninja_reads_depfile = false;
  /// From a generator's manifest: the edge's command, as Ninja prints it
  /// under `FAILED:`.
  std::string ninja_command;
};

/// The nvcc calls of a database, and how many other entries it held.
struct CompileDatabase {
  std::vector<CompileEntry> entries;
  size_t skipped = 0;  ///< entries for other compilers
};

/// Parses database text. `name` is used in error messages; relative
/// `directory` fields are resolved against `base_dir` (the database's own
/// directory). Throws CompileDatabaseError for text that is no JSON array,
/// and, naming the entry, for a malformed one (not an object, `arguments` no
/// array of strings, `command`, `directory`, `file` or `output` no string,
/// neither `arguments` nor `command`) and an nvcc entry without a directory
/// or an output.
CompileDatabase ParseCompileDatabase(std::string_view text, const std::string& name,
                                     const std::string& base_dir);

/// The nvcc call in a command's words (launchers before nvcc split off), or
/// nullopt if nvcc is not its compiler; directory, file and output unset.
std::optional<CompileEntry> NvccEntryOf(const std::vector<std::string>& words);

/// True if `program` (a path or name) is nvcc.
bool IsNvcc(std::string_view program);

}  // namespace fastcuda

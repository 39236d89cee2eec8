// Reading compile_commands.json and picking out the nvcc calls.
#pragma once

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
};

/// The nvcc calls of a database, and how many other entries it held.
struct CompileDatabase {
  std::vector<CompileEntry> entries;
  size_t skipped = 0;  ///< entries for other compilers, or without a command
};

/// Parses database text. `name` is used in error messages; relative
/// `directory` fields are resolved against `base_dir` (the database's own
/// directory). Throws CompileDatabaseError.
CompileDatabase ParseCompileDatabase(std::string_view text, const std::string& name,
                                     const std::string& base_dir);

/// True if `program` (a path or name) is nvcc.
bool IsNvcc(std::string_view program);

}  // namespace fastcuda

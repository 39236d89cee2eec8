// The sources of a cubin's line table: with line information (-lineinfo,
// -G) ptxas reads the PTX's `.file` directives and writes each named
// file's mtime and size into the cubin, so a touched source changes the
// cubin even where its PTX comes out the same.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace fastcuda {

/// The files that the `.file` directives of `ptx` name, in their order, as
/// written there (cicc writes absolute paths).
std::vector<std::string> PtxLineTableFiles(std::string_view ptx);

/// True for a cicc or ptxas command line that writes line or debug
/// information (`-lineinfo`, `-G` and the spellings nvcc gives each tool).
bool WritesLineInformation(const std::vector<std::string>& argv);

}  // namespace fastcuda

// `fastcuda ninja`: a generator's build.ninja (CMake, Meson, PyTorch's
// cpp_extension, hand-written) run by one Ninja with every nvcc compile
// split into the edges of its sub-steps.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "ninja-gen/manifest.h"
#include "src/base/command_io.h"
#include "src/nvcc/compile_database.h"
#include "src/plan/log_handover.h"

namespace fastcuda {

/// The nvcc compile that `edge` runs, as a compile entry run in `dir`, or
/// why FastCuda leaves the edge as the generator wrote it.
struct NvccEdge {
  std::optional<CompileEntry> entry;
  std::string why_kept;  ///< set when there is no entry
};

/// Reads `edge`'s command: an nvcc compile of one source into one object,
/// without shell syntax FastCuda would have to reproduce (operators,
/// redirections, variables), response files or other outputs.
NvccEdge NvccEdgeOf(const Manifest& manifest, const ManifestEdge& edge, const std::string& dir);

/// Ninja's arguments `args` (run in `dir`) with each `SOURCE^` target (the
/// first edge that reads SOURCE: an IDE's "compile this file") whose nvcc
/// edge became steps replaced by that edge's object: in the rewrite, the
/// first edge that reads SOURCE is its first step's.
std::vector<std::string> ObjectsForCarets(std::vector<std::string> args,
                                          const std::vector<SharedObject>& objects, const std::string& dir);

/// `fastcuda ninja [-C DIR] [-f FILE] [NINJA ARGS...]`.
int NinjaMain(const std::vector<std::string>& args, const CommandIo& io);

}  // namespace fastcuda

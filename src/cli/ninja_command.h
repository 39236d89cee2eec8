// `fastcuda ninja`: a generator's build.ninja (CMake, Meson, PyTorch's
// cpp_extension, hand-written) run by one Ninja with every nvcc compile
// split into the edges of its sub-steps.
#pragma once

#include <string>
#include <vector>

#include "src/base/command_io.h"
#include "src/plan/log_handover.h"

namespace fastcuda {

/// Ninja's arguments `args` (run in `dir`) with each `SOURCE^` target (the
/// first edge that reads SOURCE: an IDE's "compile this file") whose nvcc
/// edge became steps replaced by that edge's object: in the rewrite, the
/// first edge that reads SOURCE is its first step's.
std::vector<std::string> ObjectsForCarets(std::vector<std::string> args,
                                          const std::vector<SharedObject>& objects, const std::string& dir);

/// `fastcuda ninja [-C DIR] [-f FILE] [NINJA ARGS...]`: rewrites the
/// manifest where it must (ninja_rewrite.h), then runs Ninja on the rewrite.
int NinjaMain(const std::vector<std::string>& args, const CommandIo& io);

}  // namespace fastcuda

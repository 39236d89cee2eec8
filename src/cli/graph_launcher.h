// `fastcuda --build-graph DIR NVCC ARGS...`: the launcher of the CMake module
// under the Ninja generators, which runs the global graph itself. Nothing
// runs before the outer Ninja's own edges, so a no-op build costs what it
// costs without FastCuda, and "compile this file" builds that TU alone.
#pragma once

#include <optional>
#include <string>

#include "src/base/command_io.h"
#include "src/cli/launcher.h"

namespace fastcuda {

/// Builds the call's object in the graph of `call.graph_dir` (whose `fastcuda
/// build` arguments are in BuildArgsPath), as nvcc would build it: prints
/// what the TU's steps printed and returns nvcc's status. The first call of
/// an outer Ninja build runs the graph for every TU of the graph that the
/// build's targets need, at once (one Ninja, one job budget, the build's
/// -j); the calls after it find their objects built. A call outside Ninja
/// (an IDE running the command itself), or after a run that failed
/// somewhere, builds its own TU's steps. Returns nullopt where the graph does
/// not build the object (an entry nvcc runs whole, a command the database
/// does not hold): the caller then builds the TU alone.
std::optional<int> BuildThroughGraph(const LauncherCall& call, const std::string& cwd, const CommandIo& io);

}  // namespace fastcuda

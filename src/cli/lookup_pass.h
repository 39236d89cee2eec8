// The passes of Ninja before a build of a whole graph: the whole-call cache
// lookups, whose dyndep files say which steps the build runs, and the first
// phase of a first build (src/cli/first_phase.h).
#pragma once

#include <functional>
#include <string>

#include "src/base/command_io.h"
#include "src/cli/first_phase.h"

namespace fastcuda {

/// Where the graph in `dir` has whole-call cache lookups (LookupPassPath):
/// runs them through `run_ninja`, with the priority ladder's dyndep file.
/// Ninja ranks the edges it will run once, as a build starts, and loads
/// there only the dyndep files whose edges are clean: a build after this
/// pass ranks the steps of the TUs that missed as every other step, where
/// dyndep files made during the build would add them unranked. Returns
/// Ninja's status when a signal stopped it, else 0 (the build that follows
/// reports a failed lookup).
int RunLookupPass(const std::string& dir, const RunNinjaFor& run_ninja, const CommandIo& io);

/// What runs before a build of every TU of the graph in `dir`: the lookup
/// pass; the first phase (RunFirstPhase), which weighs only the TUs that
/// missed; and the lookup pass again where the first phase regenerated the
/// graph (the ladder's dyndep plan changed with it). Returns the first
/// failing status, or 0.
int RunPassesBeforeBuild(const std::string& dir, unsigned jobs, const RunNinjaFor& run_ninja,
                         const std::function<int()>& regenerate, const CommandIo& io);

}  // namespace fastcuda

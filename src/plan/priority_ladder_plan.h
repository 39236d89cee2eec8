// Steering Ninja's scheduler with the steps' remaining time: which steps
// each rung of the priority ladder waits for (ninja-gen/priority_ladder.h
// writes it).
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "src/graph/step_graph.h"

namespace fastcuda {

/// The rungs' files from one TU with a whole-call cache lookup
/// (CacheLookupOf): its steps but the lookup, which run only on a miss.
struct CachedTuRungs {
  std::string result;                                 ///< the lookup's result file
  std::map<size_t, std::vector<std::string>> inputs;  ///< by rung k: the files rung k waits for
};

/// Ninja 1.12 and later start the ready edge with the longest chain of edges
/// after it, every edge counting 1: a 9-second cicc of a heavy TU and a
/// 0.3-second one of a light TU weigh the same, and the heavy TU's chain
/// ends the build alone. A ladder of cheap edges beside the graph makes the
/// count stand for time: rung k waits for rung k+1 (order-only: Ninja ranks
/// through those too), the last rung for nothing, `all` for rung 1; a step with R ms of remaining path (its
/// own and the longest chain after it) is an input of rung round(R / quantum), so Ninja ranks it by R (a step
/// that its followers already rank that high is left off). Rungs are off every step's path and wait for
/// everything order-only; their files are the generation's, so a build runs no rung but where a dyndep file
/// gave it a step that ran (WritePriorityLadder).
struct PriorityLadder {
  int64_t quantum_ms = 0;
  /// rungs[k - 1]: the files (as Ninja names them) that rung k waits for.
  std::vector<std::vector<std::string>> rungs;
  /// The files that rungs wait for only where a TU's lookup missed: named
  /// statically, a hit would run the steps. The rungs learn them from the
  /// ladder's dyndep file, written once every lookup has run.
  std::vector<CachedTuRungs> cached;
};

/// The ladder for `graphs`, `remaining[g][i]` being step i of graph g's
/// remaining time (RemainingPathMs; empty: graph g stays off the ladder, as a
/// TU that the build does not need); no rungs when no step would rank above
/// another. `to_ninja_path` maps a graph's path to the manifest's.
PriorityLadder PlanPriorityLadder(
    const std::vector<StepGraph>& graphs, const std::vector<std::vector<int64_t>>& remaining,
    const std::function<std::string(const StepGraph&, const std::string&)>& to_ninja_path,
    size_t max_rungs = 100);

}  // namespace fastcuda

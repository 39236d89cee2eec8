// Steering Ninja's scheduler with the steps' remaining time.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "ninja-gen/ninja_writer.h"
#include "src/graph/step_graph.h"
#include "src/plan/critical_path.h"

namespace fastcuda {

/// Ninja 1.12 and later start the ready edge with the longest chain of edges
/// after it, every edge counting 1: a 9-second cicc of a heavy TU and a
/// 0.3-second one of a light TU weigh the same, and the heavy TU's chain
/// ends the build alone. A ladder of cheap edges beside the graph makes the
/// count stand for time: rung k waits for rung k+1 (order-only: Ninja ranks
/// through those too), the last rung for nothing, `all` for rung 1; a step with R ms of remaining path (its
/// own and the longest chain after it) is an input of rung round(R / quantum), so Ninja ranks it by R (a step
/// that its followers already rank that high is left off). Rungs only touch a file, off every step's path.
struct PriorityLadder {
  int64_t quantum_ms = 0;
  /// rungs[k - 1]: the files (as Ninja names them) that rung k waits for.
  std::vector<std::vector<std::string>> rungs;
};

/// The ladder for `graphs`, `remaining[g][i]` being step i of graph g's
/// remaining time (RemainingPathMs); no rungs when no step would rank above
/// another. `to_ninja_path` maps a graph's path to the manifest's.
PriorityLadder PlanPriorityLadder(
    const std::vector<StepGraph>& graphs, const std::vector<std::vector<int64_t>>& remaining,
    const std::function<std::string(const StepGraph&, const std::string&)>& to_ninja_path,
    size_t max_rungs = 100);

/// Writes the ladder's rule and rungs (files under `dir`); returns rung 1's
/// file for `all` to build, or nothing for an empty ladder.
std::vector<std::string> WritePriorityLadder(NinjaWriter& writer, const PriorityLadder& ladder,
                                             const std::string& dir);

}  // namespace fastcuda

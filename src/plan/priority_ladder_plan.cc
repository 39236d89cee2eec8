#include "src/plan/priority_ladder_plan.h"

#include <algorithm>
#include <cmath>

#include "src/graph/whole_call_cache.h"

namespace fastcuda {
namespace {

/// Rungs finer than this rank steps no better (simulated on a 16-core
/// build's timings) but cost a cascade of rungs after the last step.
constexpr int64_t kMinQuantumMs = 250;

}  // namespace

PriorityLadder PlanPriorityLadder(
    const std::vector<StepGraph>& graphs, const std::vector<std::vector<int64_t>>& remaining,
    const std::function<std::string(const StepGraph&, const std::string&)>& to_ninja_path, size_t max_rungs) {
  int64_t longest = 0;
  for (const std::vector<int64_t>& steps : remaining) {
    for (int64_t ms : steps) longest = std::max(longest, ms);
  }
  PriorityLadder ladder;
  if (max_rungs == 0 || longest == 0) return ladder;
  ladder.quantum_ms = std::max<int64_t>(kMinQuantumMs, (longest + max_rungs - 1) / max_rungs);
  for (size_t g = 0; g < graphs.size(); ++g) {
    if (remaining[g].empty()) continue;
    const std::vector<GraphStep>& steps = graphs[g].steps;
    const GraphStep* lookup = CacheLookupOf(graphs[g]);
    CachedTuRungs cached;
    if (lookup) cached.result = to_ninja_path(graphs[g], lookup->outputs.front());
    // Ninja's rank of a step: 1 + the highest rank of the edges waiting for
    // it; rung k ranks k. A step whose followers already rank it as high as
    // its rung would needs no place on the ladder (most short steps).
    std::vector<size_t> rank(steps.size(), 1);
    for (size_t i = steps.size(); i-- > 0;) {
      auto rung = static_cast<size_t>(std::llround(double(remaining[g][i]) / ladder.quantum_ms));
      if (rung + 1 > rank[i]) {
        if (ladder.rungs.size() < rung) ladder.rungs.resize(rung);
        std::string landmark = to_ninja_path(graphs[g], Landmark(graphs[g], i));
        if (lookup && &steps[i] != lookup) cached.inputs[rung].push_back(std::move(landmark));
        else ladder.rungs[rung - 1].push_back(std::move(landmark));
        rank[i] = rung + 1;
      }
      for (size_t before : steps[i].after) rank[before] = std::max(rank[before], rank[i] + 1);
    }
    if (!cached.inputs.empty()) ladder.cached.push_back(std::move(cached));
  }
  // A ladder of one rung ranks nothing above anything else.
  if (ladder.rungs.size() < 2) {
    ladder.rungs.clear();
    ladder.cached.clear();
  }
  return ladder;
}

}  // namespace fastcuda

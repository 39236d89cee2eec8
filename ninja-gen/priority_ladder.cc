#include "ninja-gen/priority_ladder.h"

#include <algorithm>
#include <cmath>

#include "ninja-gen/fragment.h"

namespace fastcuda {
namespace {

/// Rungs finer than this rank steps no better (simulated on a 16-core
/// build's timings) but cost a cascade of rungs after the last step.
constexpr int64_t kMinQuantumMs = 250;

std::string RungPath(const std::string& dir, size_t k) { return dir + "/rung" + std::to_string(k); }

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
    const std::vector<GraphStep>& steps = graphs[g].steps;
    // Ninja's rank of a step: 1 + the highest rank of the edges waiting for
    // it; rung k ranks k. A step whose followers already rank it as high as
    // its rung would needs no place on the ladder (most short steps).
    std::vector<size_t> rank(steps.size(), 1);
    for (size_t i = steps.size(); i-- > 0;) {
      auto rung = static_cast<size_t>(std::llround(double(remaining[g][i]) / ladder.quantum_ms));
      if (rung + 1 > rank[i]) {
        if (ladder.rungs.size() < rung) ladder.rungs.resize(rung);
        ladder.rungs[rung - 1].push_back(to_ninja_path(graphs[g], Landmark(graphs[g], i)));
        rank[i] = rung + 1;
      }
      for (size_t before : steps[i].after) rank[before] = std::max(rank[before], rank[i] + 1);
    }
  }
  // A ladder of one rung ranks nothing above anything else.
  if (ladder.rungs.size() < 2) ladder.rungs.clear();
  return ladder;
}

std::vector<std::string> WritePriorityLadder(NinjaWriter& writer, const PriorityLadder& ladder,
                                             const std::string& dir) {
  if (ladder.rungs.empty()) return {};
  writer.Comment("Priority ladder: " + std::to_string(ladder.quantum_ms) +
                 " ms of remaining path per rung (see ninja-gen/priority_ladder.h)");
  // A shell builtin: the cheapest command that leaves a file for the no-op check.
  writer.Rule({"FASTCUDA_RUNG", {{"command", ": > $out"}, {"description", "rung $out"}}});
  for (size_t k = ladder.rungs.size(); k >= 1; --k) {
    NinjaBuild rung;
    rung.outputs = {RungPath(dir, k)};
    rung.rule = "FASTCUDA_RUNG";
    rung.implicit_inputs = ladder.rungs[k - 1];
    // Order-only: Ninja ranks through every input, but a rung that reruns
    // must not make the ones below it rerun.
    if (k < ladder.rungs.size()) rung.order_only_inputs.push_back(RungPath(dir, k + 1));
    writer.Build(rung);
  }
  return {RungPath(dir, 1)};
}

}  // namespace fastcuda

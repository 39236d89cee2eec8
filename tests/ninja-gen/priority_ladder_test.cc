#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>

#include "ninja-gen/fragment.h"
#include "ninja-gen/priority_ladder.h"
#include "tests/test_support.h"

using namespace fastcuda;
using fastcuda::testing::CountMatches;
using fastcuda::testing::FakeFileSystem;
using fastcuda::testing::LoadTranscript;

namespace {

/// A TU compiled in `dir`, its work files in DIR/w.
StepGraph LadderGraph(const std::string& dir) {
  return BuildStepGraph(LoadTranscript("multi_gencode"), {dir, dir + "/w"},
                        FakeFileSystem(std::map<std::string, std::string>{{dir + "/kernel.cu", ""}}));
}

/// Paths as the manifest names them: absolute.
std::string Absolute(const StepGraph& graph, const std::string& path) { return ResolvePath(graph.cwd, path); }

/// Ninja's rank of each step of `graph` (1 + the highest rank of the edges
/// waiting for it; rung k ranks k), with the ladder.
std::vector<size_t> RanksOf(const PriorityLadder& ladder, const StepGraph& graph) {
  std::vector<size_t> rank(graph.steps.size(), 1);
  for (size_t i = graph.steps.size(); i-- > 0;) {
    for (size_t k = 1; k <= ladder.rungs.size(); ++k) {
      const std::vector<std::string>& inputs = ladder.rungs[k - 1];
      if (std::find(inputs.begin(), inputs.end(), Absolute(graph, Landmark(graph, i))) != inputs.end()) {
        rank[i] = std::max(rank[i], k + 1);
      }
    }
    for (size_t before : graph.steps[i].after) rank[before] = std::max(rank[before], rank[i] + 1);
  }
  return rank;
}

/// RemainingPathMs of every graph, with manifest (absolute) paths.
std::vector<std::vector<int64_t>> RemainingOf(const std::vector<StepGraph>& graphs,
                                              const StepDurations& history) {
  std::vector<std::vector<int64_t>> remaining;
  for (const StepGraph& graph : graphs) {
    remaining.push_back(
        RemainingPathMs(graph, history, [&](const std::string& path) { return Absolute(graph, path); }));
  }
  return remaining;
}

size_t Attached(const PriorityLadder& ladder) {
  size_t count = 0;
  for (const std::vector<std::string>& rung : ladder.rungs) count += rung.size();
  return count;
}

}  // namespace

TEST_CASE("the ladder ranks a heavy TU's steps above a light TU's, each chain in its order") {
  std::vector<StepGraph> graphs = {LadderGraph("/light"), LadderGraph("/heavy")};
  StepDurations history;
  for (const GraphStep& step : graphs[1].steps) {
    if (step.kind == StepKind::kCicc) history[Absolute(graphs[1], step.outputs.front())] = 9000;
    if (step.kind == StepKind::kHostCompile) history[Absolute(graphs[1], step.outputs.front())] = 8000;
  }
  for (const GraphStep& step : graphs[0].steps) {
    if (!step.outputs.empty()) history[Absolute(graphs[0], step.outputs.front())] = 100;
  }
  std::vector<std::vector<int64_t>> remaining = RemainingOf(graphs, history);
  PriorityLadder ladder = PlanPriorityLadder(graphs, remaining, Absolute, 50);
  REQUIRE(ladder.rungs.size() >= 2);
  CHECK(ladder.rungs.size() <= 50);
  std::vector<size_t> light = RanksOf(ladder, graphs[0]), heavy = RanksOf(ladder, graphs[1]);
  for (size_t i = 0; i < heavy.size(); ++i) {
    CHECK(heavy[i] > light[i]);
    // Ranked by remaining time: at least the rung that time asks for.
    CHECK(heavy[i] >= static_cast<size_t>(std::llround(double(remaining[1][i]) / ladder.quantum_ms)) + 1);
  }
  // The heavy chain's first step has the whole chain ahead of it: the top rung.
  CHECK(*std::max_element(heavy.begin(), heavy.end()) >= ladder.rungs.size() + 1);
  // Steps that their followers rank high enough stay off the ladder.
  CHECK(Attached(ladder) < graphs[0].steps.size() + graphs[1].steps.size());
}

TEST_CASE("the ladder's rungs: each waits for the next and its steps, `all` builds the first") {
  PriorityLadder ladder;
  ladder.quantum_ms = 250;
  ladder.rungs = {{"/w/a.o"}, {}, {"/w/a.ptx", "/w/b.ptx"}};
  NinjaWriter writer;
  std::vector<std::string> top = WritePriorityLadder(writer, ladder, "/out/priority");
  CHECK(top == std::vector<std::string>{"/out/priority/rung1"});
  const std::string& text = writer.text();
  CHECK(text.find("build /out/priority/rung3: FASTCUDA_RUNG | /w/a.ptx /w/b.ptx\n") != std::string::npos);
  CHECK(text.find("build /out/priority/rung2: FASTCUDA_RUNG || /out/priority/rung3\n") != std::string::npos);
  CHECK(text.find("build /out/priority/rung1: FASTCUDA_RUNG | /w/a.o || /out/priority/rung2\n") !=
        std::string::npos);
  CHECK(CountMatches(text, R"((?m)^  command = : > \$out$)") == 1);
}

TEST_CASE("no history to tell steps apart, or one rung: no ladder") {
  NinjaWriter writer;
  CHECK(WritePriorityLadder(writer, PriorityLadder{}, "/out/priority").empty());
  CHECK(writer.text().empty());
  std::vector<StepGraph> graphs = {LadderGraph("/only")};
  CHECK(PlanPriorityLadder(graphs, RemainingOf(graphs, {}), Absolute, 1).rungs.empty());
}

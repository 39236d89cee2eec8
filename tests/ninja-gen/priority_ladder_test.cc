#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>

#include "ninja-gen/fragment.h"
#include "ninja-gen/priority_ladder.h"
#include "src/graph/whole_call_cache.h"
#include "src/plan/critical_path.h"
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

TEST_CASE("the ladder's rungs: each waits order-only for the next and its steps, `all` builds the first") {
  PriorityLadder ladder;
  ladder.quantum_ms = 250;
  ladder.rungs = {{"/w/a.o"}, {}, {"/w/a.ptx", "/w/b.ptx"}};
  NinjaWriter writer;
  WrittenLadder written = WritePriorityLadder(writer, ladder, "/out/priority");
  CHECK(written.targets == std::vector<std::string>{"/out/priority/rung1"});
  CHECK(written.dyndep.empty());  // no cached TU: every rung's inputs are in the manifest
  const std::string& text = writer.text();
  CHECK(text.find("build /out/priority/rung3: FASTCUDA_RUNG || /w/a.ptx /w/b.ptx\n") != std::string::npos);
  CHECK(text.find("build /out/priority/rung2: FASTCUDA_RUNG || /out/priority/rung3\n") != std::string::npos);
  CHECK(text.find("build /out/priority/rung1: FASTCUDA_RUNG || /w/a.o /out/priority/rung2\n") !=
        std::string::npos);
  CHECK(CountMatches(text, R"((?m)^  command = : > \$out$)") == 1);
  // The generation writes the rungs' files: with no log entry and nothing
  // but order-only inputs, Ninja runs none of them.
  CHECK(CountMatches(text, R"((?m)^  generator = 1$)") == 1);
  CHECK(written.rung_files ==
        std::vector<std::string>{"/out/priority/rung3", "/out/priority/rung2", "/out/priority/rung1"});
}

TEST_CASE("no history to tell steps apart, or one rung: no ladder") {
  NinjaWriter writer;
  CHECK(WritePriorityLadder(writer, PriorityLadder{}, "/out/priority").targets.empty());
  CHECK(writer.text().empty());
  std::vector<StepGraph> graphs = {LadderGraph("/only")};
  CHECK(PlanPriorityLadder(graphs, RemainingOf(graphs, {}), Absolute, 1).rungs.empty());
}

TEST_CASE("a cached TU's steps reach the rungs through the ladder's dyndep file, and only after a miss") {
  StepGraphOptions options{"/cached", "/cached/w"};
  options.keep_depfiles = true;
  std::vector<StepGraph> graphs = {
      LadderGraph("/plain"),
      BuildStepGraph(LoadTranscript("multi_gencode"), options,
                     FakeFileSystem(std::map<std::string, std::string>{{"/cached/kernel.cu", ""}}))};
  REQUIRE(AddWholeCallCache(graphs[1], {"ccache"}, {"nvcc", "-c", "kernel.cu", "-o", "kernel.o"}));
  StepDurations history;
  for (const StepGraph& graph : graphs) {
    for (size_t i = 0; i < graph.steps.size(); ++i) history[Absolute(graph, Landmark(graph, i))] = 1000;
  }
  PriorityLadder ladder = PlanPriorityLadder(graphs, RemainingOf(graphs, history), Absolute, 50);
  REQUIRE(ladder.cached.size() == 1);
  CHECK(ladder.cached[0].result == "/cached/w/cache-result");
  // In the manifest, the rungs name no step of the cached TU but its lookup.
  bool lookup_ranked = false;
  for (const std::vector<std::string>& rung : ladder.rungs) {
    for (const std::string& file : rung) {
      if (file.rfind("/cached/", 0) != 0) continue;
      CHECK(file == "/cached/w/cache-result");
      lookup_ranked = true;
    }
  }
  CHECK(lookup_ranked);
  // The cached TU ranks as the plain one: the same steps on the same rungs.
  size_t plain = 0, cached = 0;
  for (const std::vector<std::string>& rung : ladder.rungs) {
    plain += std::count_if(rung.begin(), rung.end(),
                           [](const std::string& f) { return f.rfind("/plain/", 0) == 0; });
  }
  for (const auto& [k, files] : ladder.cached[0].inputs) cached += files.size();
  CHECK(cached == plain);

  NinjaWriter writer;
  WrittenLadder written = WritePriorityLadder(writer, ladder, "/out/priority");
  CHECK(written.dyndep == "/out/priority/dyndep");
  CHECK(written.plan_path == "/out/priority/dyndep-plan.json");
  const std::string& text = writer.text();
  CHECK(text.find("build /out/priority/dyndep: FASTCUDA_LADDER_DYNDEP /out/priority/dyndep-plan.json | "
                  "/cached/w/cache-result\n") != std::string::npos);
  CHECK(CountMatches(text, R"((?m)^  dyndep = /out/priority/dyndep$)") ==
        static_cast<int>(ladder.cached[0].inputs.size()));
  LadderDyndepPlan plan = ParseLadderDyndepPlan(written.plan_text);
  CHECK(plan.rungs.size() == ladder.cached[0].inputs.size());
  REQUIRE(plan.tus.size() == 1);
  CHECK(plan.tus[0].inputs == ladder.cached[0].inputs);
  const std::string after_hit = LadderDyndepText(plan, [](const std::string&) { return true; });
  const std::string after_miss = LadderDyndepText(plan, [](const std::string&) { return false; });
  CHECK(after_hit.rfind("ninja_dyndep_version = 1\n", 0) == 0);
  CHECK(CountMatches(after_hit, R"((?m)^build /out/priority/rung\d+: dyndep$)") ==
        static_cast<int>(plan.rungs.size()));
  CHECK(CountMatches(after_miss, R"((?m)^build /out/priority/rung\d+: dyndep \| /cached/)") ==
        static_cast<int>(plan.rungs.size()));
  CHECK_THROWS_AS(ParseLadderDyndepPlan("{}"), std::runtime_error);
}

#include <doctest/doctest.h>

#include <algorithm>

#include "src/graph/whole_call_cache.h"
#include "src/plan/critical_path.h"
#include "tests/test_support.h"

using namespace fastcuda;

TEST_CASE("ninja log: v5 records, the latest record of an output wins, junk skipped") {
  StepDurations durations = ParseNinjaLog(
      "# ninja log v5\n"
      "0\t100\t123\t/w/a.ptx\tdeadbeef\n"
      "5\t25\t123\t/w/a.cubin\t0123abcd\n"
      "not a record\n"
      "200\t260\t124\t/w/a.ptx\tdeadbeef\n");
  CHECK(durations.size() == 2);
  CHECK(durations.at("/w/a.ptx") == 60);
  CHECK(durations.at("/w/a.cubin") == 20);
}

TEST_CASE("the critical path follows the longest chain of `after` links") {
  StepGraph graph;
  auto add = [&](StepKind kind, std::string output, std::vector<size_t> after) {
    GraphStep step;
    step.kind = kind;
    step.outputs = {output};
    step.after = after;
    graph.steps.push_back(step);
  };
  add(StepKind::kDevicePreprocess, "d.ii", {});  // 10
  add(StepKind::kHostPreprocess, "h.ii", {});    // 50
  add(StepKind::kCicc, "d.ptx", {0});            // 100 -> finishes at 110
  add(StepKind::kCudafe, "h.cpp", {1});          // 30  -> 80
  add(StepKind::kHostCompile, "x.o", {2, 3});    // 5   -> 115
  StepDurations durations = {
      {"/w/d.ii", 10}, {"/w/h.ii", 50}, {"/w/d.ptx", 100}, {"/w/h.cpp", 30}, {"/w/x.o", 5}};
  auto in_w = [](const std::string& path) { return "/w/" + path; };
  // Each step's own time and the longest chain after it; the first is the critical path.
  CHECK(RemainingPathMs(graph, durations, in_w) == std::vector<int64_t>{115, 85, 105, 35, 5});
  // Without history each kind gets its default.
  std::vector<int64_t> guessed = RemainingPathMs(graph, {}, in_w);
  CHECK(*std::max_element(guessed.begin(), guessed.end()) == DefaultDuration(StepKind::kDevicePreprocess) +
                                                                 DefaultDuration(StepKind::kCicc) +
                                                                 DefaultDuration(StepKind::kHostCompile));
}

TEST_CASE("a depfile handed to Ninja or to a whole-call cache counts in the object's chain") {
  using fastcuda::testing::RecordedGraph;
  auto same = [](const std::string& path) { return path; };
  for (bool cache : {false, true}) {
    CAPTURE(cache);
    StepGraph graph = RecordedGraph("depfile");
    REQUIRE(HandDepfileToNinja(graph));
    if (cache)
      REQUIRE(AddWholeCallCache(graph, {"ccache"}, {"nvcc", "-c", "kernel.cu", "-o", "obj/kernel.o"}));
    StepDurations durations;
    for (const GraphStep& step : graph.steps) {
      REQUIRE_FALSE(step.outputs.empty());
      durations[step.outputs.front()] = 100;
    }
    std::vector<int64_t> remaining = RemainingPathMs(graph, durations, same);
    // Each step's own time and the longest chain of the steps waiting for it.
    for (size_t i = 0; i < graph.steps.size(); ++i) {
      int64_t after = 0;
      for (size_t j = 0; j < graph.steps.size(); ++j) {
        const std::vector<size_t>& waits = graph.steps[j].after;
        if (std::find(waits.begin(), waits.end(), i) != waits.end()) after = std::max(after, remaining[j]);
      }
      CHECK(remaining[i] == 100 + after);
    }
    auto object = std::find_if(graph.steps.begin(), graph.steps.end(),
                               [](const GraphStep& step) { return !step.ninja_depfile.empty(); });
    auto filter = std::find_if(graph.steps.begin(), graph.steps.end(), [](const GraphStep& step) {
      return step.kind == StepKind::kFilterDependencies;
    });
    CHECK(remaining[filter - graph.steps.begin()] == 200);  // the merge, then the object
    CHECK(remaining[object - graph.steps.begin()] == 100);
  }
}

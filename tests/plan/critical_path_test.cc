#include <doctest/doctest.h>

#include <algorithm>

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
  // A step listed after the object that waits for it (the depfile handed to
  // Ninja) still counts the object's chain.
  add(StepKind::kFilterDependencies, "x.d", {0, 1});  // 20 -> 25
  graph.steps[4].after.push_back(5);
  durations[in_w("x.d")] = 20;
  CHECK(RemainingPathMs(graph, durations, in_w) == std::vector<int64_t>{115, 85, 105, 35, 5, 25});
}

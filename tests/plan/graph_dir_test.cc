#include <doctest/doctest.h>

#include "src/plan/graph_dir.h"
#include "tests/test_support.h"

using namespace fastcuda;

TEST_CASE("kept files round-trip with any byte but NUL; a torn or foreign file reads as what it holds") {
  std::vector<KeptFiles> tus = {
      {{"/o/a b.o", "/o/\xff\n.o"}, {"/w/x\ty.ii"}}, {{}, {"/w/only"}}, {{"/o/none.o"}, {}}};
  std::string text = FormatKeptFiles(tus);
  std::vector<KeptFiles> back = ParseKeptFiles(text);
  REQUIRE(back.size() == 2);  // a TU without intermediates has nothing to drop
  CHECK(back[0].objects == tus[0].objects);
  CHECK(back[0].intermediates == tus[0].intermediates);
  CHECK(back[1].objects.empty());
  CHECK(back[1].intermediates == tus[1].intermediates);
  CHECK(ParseKeptFiles(text.substr(0, text.size() - 3)).size() == 1);
  CHECK(ParseKeptFiles("not this format\n").empty());
  CHECK(ParseKeptFiles("").empty());
  CHECK(text.find(std::string("3:only\0", 7)) != std::string::npos);  // "/w/" shared with the path before
  const char earlier[] = "1\0/o/a.o\0/w/a.ii\0\0";                    // an earlier version's: whole paths
  std::string whole_paths(earlier, sizeof(earlier) - 1);
  REQUIRE(ParseKeptFiles(whole_paths).size() == 1);
  CHECK(ParseKeptFiles(whole_paths)[0].intermediates == std::vector<std::string>{"/w/a.ii"});
}

TEST_CASE(
    "the memory log: a line per step, the largest peak of an output wins, lines without CPU time read, junk "
    "skipped") {
  std::string log = StepMemoryLine("/w/a.ptx", 100, 5) + "torn line without a tab\n" +
                    StepMemoryLine("/w/a.ptx", 300, 6) + StepMemoryLine("/w/b \xff.cubin", 7, 0) +
                    "/w/old\t40\n" + "/w/c\t12";
  CHECK(StepMemoryLine("/w/a.ptx", 100, 5) == "/w/a.ptx\t100\t5\n");
  CHECK(ParseStepMemoryLog(log) ==
        StepMemory{{"/w/a.ptx", 300}, {"/w/b \xff.cubin", 7}, {"/w/old", 40}, {"/w/c", 12}});
}

TEST_CASE("the memory log's cache outcomes: the last line of an output says, or clears it") {
  CHECK(StepMemoryLine("/w/a.ptx", 100, 5, "hit") == "/w/a.ptx\t100\t5\thit\n");
  std::string log = StepMemoryLine("/w/a.ptx", 100, 5, "miss") + StepMemoryLine("/w/b.cubin", 7, 1, "miss") +
                    StepMemoryLine("/w/a.ptx", 300, 6, "hit") + StepMemoryLine("/w/b.cubin", 9, 1) +
                    StepMemoryLine("/w/c.ptx", 1, 1, "maybe");
  StepMemoryRecords records = ParseStepMemoryRecords(log);
  CHECK(records.cache_outcomes == std::map<std::string, std::string>{{"/w/a.ptx", "hit"}});
  CHECK(records.peaks == StepMemory{{"/w/a.ptx", 300}, {"/w/b.cubin", 9}, {"/w/c.ptx", 1}});
}

TEST_CASE("the memory log's Ninja runs: one per line of an output, in order, with or without an outcome") {
  CHECK(StepMemoryLine("/w/a.ptx", 100, 5, "", "42.900") == "/w/a.ptx\t100\t5\tninja=42.900\n");
  std::string log = StepMemoryLine("/w/a.ptx", 100, 5, "miss", "42.900") +
                    StepMemoryLine("/w/a.ptx", 300, 6) + StepMemoryLine("/w/a.ptx", 200, 6, "", "43.950");
  StepMemoryRecords records = ParseStepMemoryRecords(log);
  CHECK(records.ninja_runs ==
        std::map<std::string, std::vector<std::string>>{{"/w/a.ptx", {"42.900", "", "43.950"}}});
  CHECK(records.peaks == StepMemory{{"/w/a.ptx", 300}});
  CHECK(records.cache_outcomes.empty());
}

TEST_CASE("steps.json names the work dir once, and outputs in it after it") {
  StepGraph graph;
  graph.source = "k.cu";
  graph.cwd = "/src";
  graph.work_dir = "/g/tu/k";
  graph.steps.resize(2);
  graph.steps[0].outputs = {"/g/tu/k/k.ii"};
  graph.steps[1].outputs = {"k.o"};
  graph.steps[1].after = {0};
  auto as_is = [](const StepGraph&, const std::string& path) { return path; };
  std::string text = StepsFileText({graph}, as_is, 1, {});
  CHECK(text.find("/g/tu/k/k.ii") == std::string::npos);
  std::vector<RecordedTu> back = ParseStepsFile(text);
  REQUIRE(back.size() == 1);
  REQUIRE(back[0].steps.size() == 2);
  CHECK(back[0].steps[0].output == "/g/tu/k/k.ii");
  CHECK(back[0].steps[1].output == "k.o");
}

TEST_CASE("a steps.json whose step waits for one not before it is refused") {
  auto with_after = [](const std::string& after) {
    return R"({"tus": [{"source": "a.cu", "steps": [{"kind": "CPP_HOST", "arch": "", "output": "a.ii", "after": []},)"
           R"({"kind": "HOST_CC", "arch": "", "output": "a.o", "after": [)" +
           after + "]}]}]}";
  };
  CHECK(ParseStepsFile(with_after("0")).front().steps.back().after == std::vector<size_t>{0});
  CHECK_THROWS_WITH_AS(ParseStepsFile(with_after("1")),
                       doctest::Contains("step 1 of a.cu waits for step 1, which is not before it"),
                       std::runtime_error);
  CHECK_THROWS_AS(ParseStepsFile(with_after("2")), std::runtime_error);  // a step it does not have
}

TEST_CASE("the environment file round-trips, bytes included") {
  std::map<std::string, std::string> environment = {{"PATH", "/cuda/bin:/usr/bin"}, {"CPATH", "/caf\xe9"}};
  CHECK(ParseEnvironmentFile(EnvironmentFileText(environment)) == environment);
}

TEST_CASE("the planned limits round-trip; an older directory's or a damaged file reads as none") {
  PlannedLimits limits{6 << 20, "3/4 of /sys/fs/cgroup/memory.max less the cgroup's usage", 4,
                       "the quota in /sys/fs/cgroup/cpu.max"};
  std::optional<PlannedLimits> read = ParsePlannedLimits(FormatPlannedLimits(limits));
  REQUIRE(read);
  CHECK(read->memory_budget_kib == limits.memory_budget_kib);
  CHECK(read->memory_source == limits.memory_source);
  CHECK(read->jobs == 4);
  CHECK(read->jobs_source == limits.jobs_source);
  CHECK_FALSE(ParsePlannedLimits(""));
  CHECK_FALSE(ParsePlannedLimits(R"({"jobs": 4})"));
}

TEST_CASE("launcher mode captures each step's output under a command-specific name") {
  StepGraph graph = fastcuda::testing::RecordedGraph("single_arch");
  std::string first = CapturePath("/b/cap", graph, 0);
  CHECK(first.rfind("/b/cap/step0-", 0) == 0);
  graph.steps[0].argv.push_back("-DCHANGED");
  CHECK(CapturePath("/b/cap", graph, 0) != first);
}

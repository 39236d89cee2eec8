#include <doctest/doctest.h>

#include "src/plan/memory_budget.h"

using namespace fastcuda;

namespace {

StepGraph TwoKindsOfSteps(int count) {
  StepGraph graph;
  for (int i = 0; i < count; ++i) {
    GraphStep cicc;
    cicc.kind = StepKind::kCicc;
    cicc.outputs = {"/w/" + std::to_string(i) + ".ptx"};
    GraphStep preprocess;
    preprocess.kind = StepKind::kDevicePreprocess;
    preprocess.outputs = {"/w/" + std::to_string(i) + ".ii"};
    graph.steps.push_back(cicc);
    graph.steps.push_back(preprocess);
  }
  return graph;
}

}  // namespace

TEST_CASE("the step memory log: the largest peak of an output wins; junk is skipped") {
  StepMemory memory = ParseStepMemoryLog("/w/a.ptx\t1000\nbroken line\n/w/a.ptx\t800\n/w/b.cubin\t5\n");
  CHECK(memory.at("/w/a.ptx") == 1000);
  CHECK(memory.at("/w/b.cubin") == 5);
  CHECK(memory.size() == 2);
}

TEST_CASE("memory sizes") {
  CHECK(ParseMemorySize("8G") == 8ll * 1024 * 1024);
  CHECK(ParseMemorySize("512M") == 512 * 1024);
  CHECK(ParseMemorySize("2048KiB") == 2048);
  CHECK(ParseMemorySize("1048576") == 1024);
  CHECK_FALSE(ParseMemorySize("lots"));
}

TEST_CASE(
    "a budget may bind where jobs steps at the largest guess, or a quarter over the highest peak, do not "
    "fit") {
  PlannedLimits limits{32ll * 1024 * 1024, "", 16, "", {{"CICC", 400 * 1024}, {"PTXAS", 100 * 1024}}};
  CHECK_FALSE(BudgetMayBind(limits));  // 16 x 2 GiB (a whole nvcc call's guess) in 32 GiB
  limits.jobs = 17;
  CHECK(BudgetMayBind(limits));
  limits.jobs = 8;
  limits.peak_of_kind["CICC"] = 4ll * 1024 * 1024;  // 8 x 5 GiB
  CHECK(BudgetMayBind(limits));
  limits.peak_of_kind.clear();
  CHECK_FALSE(BudgetMayBind(limits));
}

TEST_CASE("the peaks by kind: the highest of each kind's steps in the history, by absolute output") {
  StepGraph graph = TwoKindsOfSteps(3);
  graph.cwd = "/elsewhere";
  graph.steps[2].outputs = {"1.ptx"};  // relative: resolved against the graph's cwd
  StepMemory history = {{"/w/0.ptx", 300 * 1024},
                        {"/elsewhere/1.ptx", 500 * 1024},
                        {"/w/2.ptx", 400 * 1024},
                        {"/w/other.ptx", 900 * 1024}};
  CHECK(PeaksByKind({graph}, history) == std::map<std::string, int64_t>{{"CICC", 500 * 1024}});
  CHECK(PeaksByKind({graph}, {}).empty());
  CHECK(StepPeaksText(graph, history) ==
        "/w/0.ptx\t307200\t0\n/elsewhere/1.ptx\t512000\t0\n/w/2.ptx\t409600\t0\n");
  CHECK(ParseStepMemoryLog(StepPeaksText(graph, history)).at("/elsewhere/1.ptx") == 500 * 1024);
  CHECK(StepPeaksText(graph, {}).empty());
}

TEST_CASE("the step peaks planned: each graph's text where the budget may bind, none where it cannot") {
  StepGraph graph = TwoKindsOfSteps(2);
  StepMemory history = {{"/w/0.ptx", 300 * 1024}, {"/w/1.ptx", 500 * 1024}};
  PlannedLimits roomy{32ll * 1024 * 1024, "", 4, "", {}};
  CHECK(PlanStepPeaks({graph, graph}, history, roomy) == std::vector<std::string>{"", ""});
  CHECK(roomy.peak_of_kind == std::map<std::string, int64_t>{{"CICC", 500 * 1024}});
  PlannedLimits tight{1024 * 1024, "", 4, "", {}};
  std::vector<std::string> texts = PlanStepPeaks({graph}, history, tight);
  REQUIRE(texts.size() == 1);
  CHECK(texts[0] == StepPeaksText(graph, history));
}

TEST_CASE("the budget: the configured size, else 85 % of MemAvailable or 95 % of a cgroup's limit") {
  MachineLimits machine{4000, "MemAvailable in /proc/meminfo", 6, "the machine's cores"};
  PlannedLimits configured = PlanLimits({{"FASTCUDA_MEMORY_BUDGET", "48G"}}, 0, machine);
  CHECK(configured.memory_budget_kib == 48ll * 1024 * 1024);
  CHECK(configured.memory_source == "FASTCUDA_MEMORY_BUDGET");
  PlannedLimits derived = PlanLimits({}, 0, machine);
  CHECK(derived.memory_budget_kib == 3400);
  CHECK(derived.memory_source == "85 % of MemAvailable in /proc/meminfo");
  // A cgroup's limit is the build's container's own: less held back.
  MachineLimits container{4000, "/sys/fs/cgroup/memory.max less the cgroup's usage", 6, "", true};
  CHECK(PlanLimits({}, 0, container).memory_budget_kib == 3800);
  CHECK(PlanLimits({}, 0, container).memory_source ==
        "95 % of /sys/fs/cgroup/memory.max less the cgroup's usage");
  CHECK(PlanLimits({}, 0, MachineLimits{}).memory_budget_kib == 8ll * 1024 * 1024);
  // A cgroup at its limit still gets pools (a budget of 0 would mean none).
  CHECK(PlanLimits({}, 0, MachineLimits{0, "/sys/fs/cgroup/memory.max less the cgroup's usage"})
            .memory_budget_kib == 1);
  CHECK_THROWS_WITH_AS(PlanLimits({{"FASTCUDA_MEMORY_BUDGET", "lots"}}, 0, machine),
                       "FASTCUDA_MEMORY_BUDGET is not a size: lots", std::invalid_argument);
}

TEST_CASE("the jobs: those asked for, else the CPUs the tightest limit leaves") {
  MachineLimits machine{4000, "MemAvailable in /proc/meminfo", 2, "the quota in /sys/fs/cgroup/cpu.max"};
  CHECK(PlanLimits({}, 0, machine).jobs == 2);
  CHECK(PlanLimits({}, 0, machine).jobs_source == "the quota in /sys/fs/cgroup/cpu.max");
  CHECK(PlanLimits({}, 8, machine).jobs == 8);
  CHECK(PlanLimits({}, 8, machine).jobs_source == "asked for (-j or FASTCUDA_JOBS)");
}

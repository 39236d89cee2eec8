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

std::string Same(const StepGraph&, const std::string& path) { return path; }

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

TEST_CASE("a budget that holds every job needs no pool") {
  MemoryPlan plan = PlanMemory({TwoKindsOfSteps(4)}, {}, 64ll * 1024 * 1024, 16, Same);
  CHECK(plan.pool_depths.empty());
  CHECK(plan.pool_of_output.empty());
}

TEST_CASE("a tight budget limits the heavy class and leaves the light one free") {
  // cicc (no history) is 1 GiB, preprocessing 256 MiB. Budget 6 GiB, 8 jobs:
  // each class gets 3 GiB; 3 cicc fit, while 12 preprocess steps would.
  MemoryPlan plan = PlanMemory({TwoKindsOfSteps(4)}, {}, 6ll * 1024 * 1024, 8, Same);
  CHECK(plan.pool_depths == std::map<std::string, int>{{"fastcuda_mem_1024m", 3}});
  CHECK(plan.pool_of_output.at("/w/0.ptx") == "fastcuda_mem_1024m");
  CHECK_FALSE(plan.pool_of_output.count("/w/0.ii"));
}

TEST_CASE("history moves a step to the class of its measured peak") {
  StepMemory history = {{"/w/0.ptx", 3 * 1024 * 1024}, {"/w/1.ptx", 100 * 1024}};
  MemoryPlan plan = PlanMemory({TwoKindsOfSteps(2)}, history, 12ll * 1024 * 1024, 8, Same);
  // Classes: 4 GiB (0.ptx), 256 MiB (1.ptx and the .ii): 6 GiB each.
  CHECK(plan.pool_depths == std::map<std::string, int>{{"fastcuda_mem_4096m", 1}});
  CHECK(plan.pool_of_output.at("/w/0.ptx") == "fastcuda_mem_4096m");
  CHECK_FALSE(plan.pool_of_output.count("/w/1.ptx"));
}

TEST_CASE("the budget: the configured size, else three quarters of what the tightest limit leaves") {
  MachineLimits machine{4000, "MemAvailable in /proc/meminfo", 6, "the machine's cores"};
  PlannedLimits configured = PlanLimits({{"FASTCUDA_MEMORY_BUDGET", "48G"}}, 0, machine);
  CHECK(configured.memory_budget_kib == 48ll * 1024 * 1024);
  CHECK(configured.memory_source == "FASTCUDA_MEMORY_BUDGET");
  PlannedLimits derived = PlanLimits({}, 0, machine);
  CHECK(derived.memory_budget_kib == 3000);
  CHECK(derived.memory_source == "3/4 of MemAvailable in /proc/meminfo");
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

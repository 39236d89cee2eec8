#include "src/plan/memory_budget.h"

#include <re2/re2.h>

#include <algorithm>
#include <set>

#include "src/base/toolchain_environment.h"

namespace fastcuda {
namespace {

constexpr int64_t kSmallestClassKib = 256 * 1024;

/// The class of a step: the smallest power of two (KiB) from 256 MiB up
/// that holds its peak memory.
int64_t ClassOf(int64_t kib) {
  int64_t bound = kSmallestClassKib;
  while (bound < kib) bound *= 2;
  return bound;
}

std::string PoolName(int64_t class_kib) { return "fastcuda_mem_" + std::to_string(class_kib / 1024) + "m"; }

}  // namespace

int64_t DefaultStepMemory(StepKind kind) {
  switch (kind) {
    case StepKind::kCicc:
      return 1024 * 1024;
    case StepKind::kUnknown:
      return 2048 * 1024;  // a whole nvcc call
    case StepKind::kPtxas:
    case StepKind::kCudafe:
    case StepKind::kHostCompile:
      return 512 * 1024;
    default:
      return 256 * 1024;
  }
}

std::optional<int64_t> ParseMemorySize(std::string_view text) {
  static const RE2 size(R"re(\s*(\d+)\s*([kKmMgGtT]?)i?[bB]?\s*)re", RE2::Latin1);
  int64_t number = 0;
  std::string unit;
  if (!RE2::FullMatch(text, size, &number, &unit)) return std::nullopt;
  int64_t shift = std::string("bkmgt").find(unit.empty() ? 'b' : char(std::tolower(unit[0]))) * 10;
  return (number << shift) / 1024;
}

MemoryPlan PlanMemory(const std::vector<StepGraph>& graphs, const StepMemory& history, int64_t budget_kib,
                      unsigned jobs,
                      const std::function<std::string(const StepGraph&, const std::string&)>& ninja_path) {
  std::map<std::string, int64_t> class_of_output;
  std::set<int64_t> classes;
  for (const StepGraph& graph : graphs) {
    for (const GraphStep& step : graph.steps) {
      if (step.outputs.empty()) continue;
      std::string output = ninja_path(graph, step.outputs.front());
      auto known = history.find(output);
      int64_t kib = known != history.end() ? known->second : DefaultStepMemory(step.kind);
      class_of_output[output] = ClassOf(kib);
      classes.insert(ClassOf(kib));
    }
  }
  MemoryPlan plan;
  if (classes.empty()) return plan;
  int64_t share = budget_kib / static_cast<int64_t>(classes.size());
  std::set<int64_t> pooled;
  for (int64_t bound : classes) {
    int64_t depth = std::max<int64_t>(1, share / bound);
    if (depth >= static_cast<int64_t>(jobs)) continue;
    plan.pool_depths[PoolName(bound)] = static_cast<int>(depth);
    pooled.insert(bound);
  }
  for (const auto& [output, bound] : class_of_output) {
    if (pooled.count(bound)) plan.pool_of_output[output] = PoolName(bound);
  }
  return plan;
}

PlannedLimits PlanLimits(const std::map<std::string, std::string>& environment, unsigned requested,
                         const MachineLimits& machine) {
  const std::string configured = EnvironmentValue(environment, "FASTCUDA_MEMORY_BUDGET");
  PlannedLimits limits;
  if (!configured.empty()) {
    std::optional<int64_t> kib = ParseMemorySize(configured);
    if (!kib) throw std::invalid_argument("FASTCUDA_MEMORY_BUDGET is not a size: " + configured);
    limits.memory_budget_kib = *kib;
    limits.memory_source = "FASTCUDA_MEMORY_BUDGET";
  } else if (machine.memory_kib) {
    // At least 1 KiB: 0 would mean no pools, where a full cgroup needs them most.
    limits.memory_budget_kib = std::max<int64_t>(1, *machine.memory_kib / 4 * 3);
    limits.memory_source = "3/4 of " + machine.memory_source;
  } else {
    limits.memory_budget_kib = 8ll * 1024 * 1024;
    limits.memory_source = "the default, as nothing says how much memory is available";
  }
  limits.jobs = requested ? requested : std::max(1u, machine.cpus);
  limits.jobs_source = requested ? "asked for (-j or FASTCUDA_JOBS)" : machine.cpu_source;
  return limits;
}

}  // namespace fastcuda

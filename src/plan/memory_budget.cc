#include "src/plan/memory_budget.h"

#include <re2/re2.h>

#include <algorithm>

#include "src/base/toolchain_environment.h"

namespace fastcuda {

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

bool BudgetMayBind(const PlannedLimits& limits) {
  int64_t most = DefaultStepMemory(StepKind::kUnknown);
  for (const auto& [kind, peak] : limits.peak_of_kind) most = std::max(most, peak + peak / 4);
  return limits.memory_budget_kib < static_cast<int64_t>(limits.jobs) * most;
}

std::string StepPeaksText(const StepGraph& graph, const StepMemory& history) {
  std::string text;
  for (const GraphStep& step : graph.steps) {
    if (step.outputs.empty()) continue;
    std::string output = ResolvePath(graph.cwd, step.outputs.front());
    if (auto known = history.find(output); known != history.end())
      text += StepMemoryLine(output, known->second, 0);
  }
  return text;
}

std::vector<std::string> PlanStepPeaks(const std::vector<StepGraph>& graphs, const StepMemory& history,
                                       PlannedLimits& limits) {
  limits.peak_of_kind = PeaksByKind(graphs, history);
  const bool may_bind = BudgetMayBind(limits);
  std::vector<std::string> texts;
  for (const StepGraph& graph : graphs) texts.push_back(may_bind ? StepPeaksText(graph, history) : "");
  return texts;
}

std::string MemoryInputOf(const GraphStep& step) {
  const bool grows = step.kind == StepKind::kCicc || step.kind == StepKind::kPtxas ||
                     step.kind == StepKind::kCudafe || step.kind == StepKind::kHostCompile;
  if (!grows) return "";
  // By suffix: cicc also reads the module id, the host compile the fatbin's C file.
  auto source = std::find_if(step.inputs.begin(), step.inputs.end(), [](const std::string& input) {
    return input.ends_with(".ii") || input.ends_with(".ptx") || input.ends_with(".cpp");
  });
  return source == step.inputs.end() ? "" : *source;
}

std::optional<int64_t> ParseMemorySize(std::string_view text) {
  static const RE2 size(R"re(\s*(\d+)\s*([kKmMgGtT]?)i?[bB]?\s*)re", RE2::Latin1);
  int64_t number = 0;
  std::string unit;
  if (!RE2::FullMatch(text, size, &number, &unit)) return std::nullopt;
  int64_t shift = std::string("bkmgt").find(unit.empty() ? 'b' : char(std::tolower(unit[0]))) * 10;
  return (number << shift) / 1024;
}

std::map<std::string, int64_t> PeaksByKind(const std::vector<StepGraph>& graphs, const StepMemory& history) {
  std::map<std::string, int64_t> peaks;
  for (const StepGraph& graph : graphs) {
    for (const GraphStep& step : graph.steps) {
      if (step.outputs.empty()) continue;
      auto known = history.find(ResolvePath(graph.cwd, step.outputs.front()));
      if (known == history.end()) continue;
      int64_t& peak = peaks[std::string(StepKindName(step.kind))];
      peak = std::max(peak, known->second);
    }
  }
  return peaks;
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
    // Not all of it: what runs beside the steps (Ninja, the waiting steps'
    // own processes, dirty page cache) needs some, and on a shared machine
    // other programs may grow while the build runs. A cgroup's limit is the
    // build's container's own: 95 % of it, where 85 % kept three ciccs
    // running where plain nvcc's four fitted. A step that runs out of
    // memory runs again alone.
    const int percent = machine.memory_from_cgroup ? 95 : 85;
    limits.memory_budget_kib = std::max<int64_t>(1, *machine.memory_kib / 100 * percent);
    limits.memory_source = std::to_string(percent) + " % of " + machine.memory_source;
  } else {
    limits.memory_budget_kib = 8ll * 1024 * 1024;
    limits.memory_source = "the default, as nothing says how much memory is available";
  }
  limits.jobs = requested ? requested : std::max(1u, machine.cpus);
  limits.jobs_source = requested ? "asked for (-j or FASTCUDA_JOBS)" : machine.cpu_source;
  return limits;
}

}  // namespace fastcuda

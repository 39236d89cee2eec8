// Memory-aware scheduling: how many memory-heavy steps may run at once.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "src/base/machine.h"
#include "src/graph/step_graph.h"
#include "src/plan/graph_dir.h"

namespace fastcuda {

/// A guess of a step's peak memory (KiB) when it has no history.
int64_t DefaultStepMemory(StepKind kind);

/// Parses a budget such as "8G", "512M", "1048576K" or bytes; nullopt if malformed.
std::optional<int64_t> ParseMemorySize(std::string_view text);

/// Pools that keep the steps' summed peak memory under a budget.
struct MemoryPlan {
  std::map<std::string, int> pool_depths;             ///< pool name -> depth
  std::map<std::string, std::string> pool_of_output;  ///< first output (Ninja path) -> pool
};

/// Sorts steps into classes by peak memory (powers of two from 256 MiB) and
/// gives each class an equal share of the budget: a class whose share holds
/// `jobs` of its steps needs no pool; otherwise its pool admits as many as
/// the share holds (at least one). The classes together stay under the
/// budget, and light steps are never held back by heavy ones.
MemoryPlan PlanMemory(const std::vector<StepGraph>& graphs, const StepMemory& history, int64_t budget_kib,
                      unsigned jobs,
                      const std::function<std::string(const StepGraph&, const std::string&)>& ninja_path);

/// The budget and job count to plan with, and where each came from: the
/// budget FASTCUDA_MEMORY_BUDGET of `environment` when set, else three
/// quarters of the memory the machine's tightest limit leaves (8 GiB where
/// nothing says); the jobs `requested` (-j, FASTCUDA_JOBS) when not 0, else
/// the CPUs its tightest limit leaves. Throws std::invalid_argument for a
/// configured budget that is no size.
PlannedLimits PlanLimits(const std::map<std::string, std::string>& environment, unsigned requested,
                         const MachineLimits& machine);

}  // namespace fastcuda

// Memory-aware scheduling: how many memory-heavy steps may run at once.
#pragma once

#include <cstdint>
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

/// True where the steps could need more than the budget at once: `jobs`
/// steps, each expected at the largest guess (DefaultStepMemory) or a
/// quarter over the highest peak of PlannedLimits::peak_of_kind, would not
/// fit. Only then do steps wait in the memory ledger and need their own
/// peaks (StepPeaksText): elsewhere no step pays for either.
bool BudgetMayBind(const PlannedLimits& limits);

/// The lines of step-memory.tsv's form (StepMemoryLine) that give the
/// peaks `history` holds of `graph`'s steps, by first output (absolute):
/// StepPeaksPath's text; "" where it holds none.
std::string StepPeaksText(const StepGraph& graph, const StepMemory& history);

/// Sets `limits.peak_of_kind` from `history` (PeaksByKind) and returns the
/// text of each graph's StepPeaksPath: StepPeaksText where the budget may
/// bind (BudgetMayBind), else "" (no file: where it cannot bind, no step
/// reads one).
std::vector<std::string> PlanStepPeaks(const std::vector<StepGraph>& graphs, const StepMemory& history,
                                       PlannedLimits& limits);

/// The input whose size a step's peak memory grows with (the preprocessed
/// source of cicc, cudafe++ and the host compile, ptxas's PTX), or "".
std::string MemoryInputOf(const GraphStep& step);

/// Parses a budget such as "8G", "512M", "1048576K" or bytes; nullopt if malformed.
std::optional<int64_t> ParseMemorySize(std::string_view text);

/// The highest peak memory (KiB) that the steps of `graphs` of each kind
/// (StepKindName) reached in earlier builds, as `history` holds it by
/// first output (absolute): what a step of that kind is expected to reach
/// (MemoryAdmission) before one has run in this build.
std::map<std::string, int64_t> PeaksByKind(const std::vector<StepGraph>& graphs, const StepMemory& history);

/// The budget and job count to plan with, and where each came from: the
/// budget FASTCUDA_MEMORY_BUDGET of `environment` when set, else three
/// quarters of the memory the machine's tightest limit leaves (8 GiB where
/// nothing says); the jobs `requested` (-j, FASTCUDA_JOBS) when not 0, else
/// the CPUs its tightest limit leaves. Throws std::invalid_argument for a
/// configured budget that is no size.
PlannedLimits PlanLimits(const std::map<std::string, std::string>& environment, unsigned requested,
                         const MachineLimits& machine);

}  // namespace fastcuda

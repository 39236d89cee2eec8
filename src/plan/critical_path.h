// Step timings from the last build, and the critical path they give.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "src/base/ninja_log.h"
#include "src/graph/step_graph.h"

namespace fastcuda {

/// How long the edge writing each output took in the last build (ms), read
/// from a `.ninja_log`; the latest record of an output wins.
using StepDurations = std::map<std::string, int64_t>;

/// The durations of ParseNinjaLogRecords, the latest record of an output winning.
StepDurations ParseNinjaLog(std::string_view text);

/// A guess for a step with no history, by kind (ms).
int64_t DefaultDuration(StepKind kind);

/// For every step of `graph`, in ms: its duration and the longest chain of
/// steps that wait for it, each step's duration from `durations` (keyed by
/// the step's first output as Ninja names it: `to_ninja_path` maps it) or
/// DefaultDuration. The largest is the graph's critical path. Scheduling the
/// step with the most remaining first is what keeps a build's tail short.
std::vector<int64_t> RemainingPathMs(const StepGraph& graph, const StepDurations& durations,
                                     const std::function<std::string(const std::string&)>& to_ninja_path);

}  // namespace fastcuda

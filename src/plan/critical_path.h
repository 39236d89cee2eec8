// Step timings from the last build, and the critical path they give.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "src/graph/step_graph.h"

namespace fastcuda {

/// How long the edge writing each output took in the last build (ms), read
/// from a `.ninja_log`; the latest record of an output wins.
using StepDurations = std::map<std::string, int64_t>;

/// One record of `.ninja_log`: a step that ended, times in ms from its build's start.
struct NinjaLogRecord {
  int64_t start_ms = 0;
  int64_t end_ms = 0;
  std::string output;
};

/// Every record of `.ninja_log` text (format v5 and v6: start, end, mtime,
/// output, hash), in file order; lines of another shape are skipped.
std::vector<NinjaLogRecord> ParseNinjaLogRecords(std::string_view text);

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

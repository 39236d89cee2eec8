#include "src/plan/critical_path.h"

#include <algorithm>
#include <vector>

namespace fastcuda {

StepDurations ParseNinjaLog(std::string_view text) {
  StepDurations durations;
  for (const NinjaLogRecord& record : ParseNinjaLogRecords(text)) {
    durations[record.output] = record.end_ms - record.start_ms;
  }
  return durations;
}

int64_t DefaultDuration(StepKind kind) {
  switch (kind) {
    case StepKind::kCicc:
      return 2000;
    case StepKind::kPtxas:
      return 1000;
    case StepKind::kCudafe:
      return 1000;
    case StepKind::kHostCompile:
      return 800;
    case StepKind::kHostPreprocess:
    case StepKind::kDevicePreprocess:
      return 400;
    case StepKind::kUnknown:
      return 3000;  // a whole nvcc call
    default:
      return 50;
  }
}

std::vector<int64_t> RemainingPathMs(const StepGraph& graph, const StepDurations& durations,
                                     const std::function<std::string(const std::string&)>& to_ninja_path) {
  // Steps are in a topological order: backwards, every step's followers are done.
  std::vector<int64_t> remaining(graph.steps.size(), 0);
  for (size_t i = graph.steps.size(); i-- > 0;) {
    const GraphStep& step = graph.steps[i];
    int64_t duration = DefaultDuration(step.kind);
    if (!step.outputs.empty()) {
      auto it = durations.find(to_ninja_path(step.outputs.front()));
      if (it != durations.end()) duration = it->second;
    }
    remaining[i] += duration;  // holds the longest follower's path already
    for (size_t before : step.after) remaining[before] = std::max(remaining[before], remaining[i]);
  }
  return remaining;
}

}  // namespace fastcuda

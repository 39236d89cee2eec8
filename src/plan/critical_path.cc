#include "src/plan/critical_path.h"

#include <re2/re2.h>

#include <algorithm>
#include <vector>

namespace fastcuda {

std::vector<NinjaLogRecord> ParseNinjaLogRecords(std::string_view text) {
  static const RE2 record(R"re((\d+)\t(\d+)\t\d+\t([^\t\n]+)\t[0-9a-f]+\r?\n?)re", RE2::Latin1);
  std::vector<NinjaLogRecord> records;
  re2::StringPiece input(text.data(), text.size());
  NinjaLogRecord next;
  while (!input.empty()) {
    if (RE2::Consume(&input, record, &next.start_ms, &next.end_ms, &next.output)) {
      records.push_back(next);
      continue;
    }
    size_t newline = input.find('\n');  // a comment, or a line we do not know
    input.remove_prefix(newline == re2::StringPiece::npos ? input.size() : newline + 1);
  }
  return records;
}

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

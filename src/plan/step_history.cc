#include "src/plan/step_history.h"

#include <filesystem>

#include <nlohmann/json.hpp>

#include "src/base/json_bytes.h"
#include "src/base/process.h"
#include "src/plan/critical_path.h"

namespace fastcuda {

std::string StepHistoryPath() {
  std::string path = EnvironmentVariable("FASTCUDA_STEP_HISTORY");
  if (path == "off") return "";
  if (!path.empty()) return path;
  std::string cache = EnvironmentVariable("XDG_CACHE_HOME");
  if (cache.empty()) {
    const std::string home = EnvironmentVariable("HOME");
    if (home.empty()) return "";
    cache = home + "/.cache";
  }
  return cache + "/fastcuda/step-times.json";
}

std::string StepHistoryKey(const RecordedTu& tu, const RecordedStep& step) {
  return tu.source_path + "\t" + std::filesystem::path(step.output).filename().string();
}

std::string FormatStepHistory(const StepHistory& history) {
  nlohmann::json steps = nlohmann::json::object();
  for (const auto& [key, time] : history) steps[key] = {time.ms, time.day};
  return DumpJsonBytes({{"fastcuda_step_times", 1}, {"steps", steps}}) + "\n";
}

StepHistory ParseStepHistory(std::string_view text) {
  StepHistory history;
  try {
    const nlohmann::json document = ParseJsonBytes(text);
    if (document.value("fastcuda_step_times", 0) != 1) return {};
    for (const auto& [key, time] : document.at("steps").items()) {
      history[key] = {time.at(0).get<int64_t>(), time.at(1).get<int64_t>()};
    }
  } catch (const nlohmann::json::exception&) {
    return {};
  }
  return history;
}

bool IsMeasured(const NinjaLogRecord& record) {
  return record.start_ms != 0 || record.mtime != 0 || record.command_hash != 0;
}

void RememberStepTimes(StepHistory& history, const std::vector<RecordedTu>& tus,
                       const std::vector<NinjaLogRecord>& log, int64_t today) {
  std::map<std::string_view, int64_t> measured;
  for (const NinjaLogRecord& record : log) {
    if (IsMeasured(record)) measured[record.output] = record.end_ms - record.start_ms;
  }
  for (const RecordedTu& tu : tus) {
    if (tu.source_path.empty()) continue;  // a link, or stdin: no key names it
    for (const RecordedStep& step : tu.steps) {
      auto time = measured.find(step.output);
      if (step.output.empty() || time == measured.end()) continue;
      history[StepHistoryKey(tu, step)] = {time->second, today};
    }
  }
  std::erase_if(history, [&](const auto& entry) { return entry.second.day < today - kForgetAfterDays; });
}

bool Remembers(const StepHistory& history, const RecordedTu& tu) {
  if (tu.source_path.empty()) return false;
  for (const RecordedStep& step : tu.steps) {
    if (!step.output.empty() && !history.contains(StepHistoryKey(tu, step))) return false;
  }
  return true;
}

std::vector<NinjaLogRecord> RememberedRecords(const StepHistory& history, const RecordedTu& tu) {
  std::vector<NinjaLogRecord> records;
  for (const RecordedStep& step : tu.steps) {
    if (step.output.empty() || tu.source_path.empty()) continue;
    if (auto time = history.find(StepHistoryKey(tu, step)); time != history.end()) {
      records.push_back({0, time->second.ms, 0, step.output, 0});
    }
  }
  return records;
}

std::vector<NinjaLogRecord> MeanTuRecords(const StepHistory& history, const std::vector<RecordedTu>& known,
                                          const std::vector<RecordedTu>& unknown) {
  std::map<std::string, std::pair<int64_t, int64_t>> sum_and_count;  // by kind
  for (const RecordedTu& tu : known) {
    for (const RecordedStep& step : tu.steps) {
      if (step.output.empty() || tu.source_path.empty()) continue;
      if (auto time = history.find(StepHistoryKey(tu, step)); time != history.end()) {
        sum_and_count[step.kind].first += time->second.ms;
        ++sum_and_count[step.kind].second;
      }
    }
  }
  std::vector<NinjaLogRecord> records;
  for (const RecordedTu& tu : unknown) {
    for (const RecordedStep& step : tu.steps) {
      if (step.output.empty()) continue;
      auto mean = sum_and_count.find(step.kind);
      const int64_t ms = mean != sum_and_count.end()
                             ? mean->second.first / mean->second.second
                             : DefaultDuration(StepKindNamed(step.kind).value_or(StepKind::kUnknown));
      records.push_back({0, ms, 0, step.output, 0});
    }
  }
  return records;
}

}  // namespace fastcuda

#include "src/plan/step_history.h"

#include <nlohmann/json.hpp>

#include "src/base/json_bytes.h"
#include "src/base/process.h"
#include "src/base/stable_hash.h"
#include "src/plan/critical_path.h"

namespace fastcuda {
namespace {

/// The file name of a step's first output, the key of its time.
std::string StepFileName(const RecordedStep& step) {
  return std::filesystem::path(step.output).filename().string();
}

}  // namespace

std::string StepHistoryDir() {
  std::string dir = EnvironmentVariable("FASTCUDA_STEP_HISTORY");
  if (dir == "off") return "";
  if (!dir.empty()) return dir;
  std::string cache = EnvironmentVariable("XDG_CACHE_HOME");
  if (cache.empty()) {
    const std::string home = EnvironmentVariable("HOME");
    if (home.empty()) return "";
    cache = home + "/.cache";
  }
  return cache + "/fastcuda/step-times";
}

std::string SourceTimesPath(const std::string& dir, const std::string& source_path) {
  return dir + "/" + std::filesystem::path(source_path).filename().string() + "-" +
         StableHashHex(source_path, 16) + ".json";
}

std::string FormatSourceTimes(const SourceTimes& times) {
  return DumpJsonBytes({{"fastcuda_step_times", 1},
                        {"source", times.source_path},
                        {"ms", times.ms},
                        {"peak_kib", times.peak_kib}}) +
         "\n";
}

std::optional<SourceTimes> ParseSourceTimes(std::string_view text, const std::string& source_path) {
  try {
    const nlohmann::json document = ParseJsonBytes(text);
    if (document.value("fastcuda_step_times", 0) != 1 || document.value("source", "") != source_path) {
      return std::nullopt;
    }
    return SourceTimes{source_path, document.at("ms").get<std::map<std::string, int64_t>>(),
                       document.at("peak_kib").get<std::map<std::string, int64_t>>()};
  } catch (const nlohmann::json::exception&) {
    return std::nullopt;
  }
}

bool IsMeasured(const NinjaLogRecord& record) {
  return record.start_ms != 0 || record.mtime != 0 || record.command_hash != 0;
}

bool RememberStepTimes(SourceTimes& times, const RecordedTu& tu, const std::vector<NinjaLogRecord>& log,
                       const StepMemory& peaks) {
  std::map<std::string, int64_t> measured;
  for (const NinjaLogRecord& record : log) {
    if (IsMeasured(record)) measured[record.output] = record.end_ms - record.start_ms;
  }
  bool changed = false;
  auto remember = [&](std::map<std::string, int64_t>& into, const std::map<std::string, int64_t>& from,
                      const RecordedStep& step) {
    auto value = from.find(step.output);
    if (value == from.end()) return;
    auto [entry, added] = into.try_emplace(StepFileName(step), value->second);
    changed |= added || entry->second != value->second;
    entry->second = value->second;
  };
  for (const RecordedStep& step : tu.steps) {
    if (step.output.empty()) continue;
    remember(times.ms, measured, step);
    remember(times.peak_kib, peaks, step);
  }
  return changed;
}

bool Remembers(const SourceTimes& times, const RecordedTu& tu) {
  for (const RecordedStep& step : tu.steps) {
    if (!step.output.empty() && !times.ms.contains(StepFileName(step))) return false;
  }
  return true;
}

std::vector<NinjaLogRecord> RememberedRecords(const SourceTimes& times, const RecordedTu& tu) {
  std::vector<NinjaLogRecord> records;
  for (const RecordedStep& step : tu.steps) {
    if (step.output.empty()) continue;
    if (auto time = times.ms.find(StepFileName(step)); time != times.ms.end()) {
      records.push_back({0, time->second, 0, step.output, 0});
    }
  }
  return records;
}

std::string RememberedMemoryLines(const SourceTimes& times, const RecordedTu& tu, const StepMemory& peaks) {
  std::string lines;
  for (const RecordedStep& step : tu.steps) {
    if (step.output.empty() || peaks.contains(step.output)) continue;
    if (auto peak = times.peak_kib.find(StepFileName(step)); peak != times.peak_kib.end()) {
      lines += StepMemoryLine(step.output, peak->second, 0);
    }
  }
  return lines;
}

std::vector<NinjaLogRecord> MeanTuRecords(const std::vector<std::pair<RecordedTu, SourceTimes>>& known,
                                          const std::vector<RecordedTu>& unknown) {
  std::map<std::string, std::pair<int64_t, int64_t>> sum_and_count;  // by kind
  for (const auto& [tu, times] : known) {
    for (const RecordedStep& step : tu.steps) {
      if (step.output.empty()) continue;
      if (auto time = times.ms.find(StepFileName(step)); time != times.ms.end()) {
        sum_and_count[step.kind].first += time->second;
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

void ForgetOldStepTimes(const std::string& dir, std::filesystem::file_time_type now, WritableFileSystem& fs) {
  for (const std::string& file : fs.FilesIn(dir)) {
    std::optional<std::filesystem::file_time_type> written = fs.MTime(file);
    if (written && *written < now - kForgetAfter) fs.Remove(file);
  }
}

}  // namespace fastcuda

#include "src/plan/step_history.h"

#include <re2/re2.h>

#include <algorithm>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "src/base/json_bytes.h"
#include "src/base/toolchain_environment.h"
#include "src/nvcc/step.h"
#include "src/plan/critical_path.h"

namespace fastcuda {
namespace {

/// The file name of a step's first output, the key of its time.
std::string StepFileName(const RecordedStep& step) {
  return std::filesystem::path(step.output).filename().string();
}

/// What `values` (by StepFileName) holds for `step`; none for a step that
/// writes no file.
std::optional<int64_t> RememberedOf(const std::map<std::string, int64_t>& values, const RecordedStep& step) {
  if (step.output.empty()) return std::nullopt;
  auto value = values.find(StepFileName(step));
  return value == values.end() ? std::nullopt : std::optional<int64_t>(value->second);
}

/// The day a build last wrote the SourceTimes file `text`, whatever its source.
std::optional<int64_t> DayWritten(std::string_view text) {
  try {
    const nlohmann::json document = ParseJsonBytes(text);
    if (document.value("fastcuda_step_times", 0) != 1) return std::nullopt;
    return document.at("day").get<int64_t>();
  } catch (const nlohmann::json::exception&) {
    return std::nullopt;
  }
}

/// How many trailing components (the file name, then its directories) two
/// paths share.
size_t SharedTail(const std::filesystem::path& a, const std::filesystem::path& b) {
  auto x = a.end(), y = b.end();
  size_t shared = 0;
  while (x != a.begin() && y != b.begin() && *--x == *--y) ++shared;
  return shared;
}

/// The SourceTimes file `text`, whatever source it names; nullopt for a
/// damaged or foreign file.
std::optional<SourceTimes> ParseAnySourceTimes(std::string_view text) {
  try {
    const nlohmann::json document = ParseJsonBytes(text);
    if (document.value("fastcuda_step_times", 0) != 1) return std::nullopt;
    return SourceTimes{document.value("source", ""), document.at("ms").get<std::map<std::string, int64_t>>(),
                       document.at("peak_kib").get<std::map<std::string, int64_t>>(),
                       document.at("day").get<int64_t>()};
  } catch (const nlohmann::json::exception&) {
    return std::nullopt;
  }
}

}  // namespace

std::string StepHistoryDir(const std::map<std::string, std::string>& environment) {
  std::string dir = EnvironmentValue(environment, "FASTCUDA_STEP_HISTORY");
  if (dir == "off") return "";
  if (!dir.empty()) return std::filesystem::path(dir).is_absolute() ? dir : "";
  std::string cache = EnvironmentValue(environment, "XDG_CACHE_HOME");
  if (cache.empty()) {
    const std::string home = EnvironmentValue(environment, "HOME");
    if (home.empty()) return "";
    cache = home + "/.cache";
  }
  return cache + "/fastcuda/step-times";
}

std::string FormatSourceTimes(const SourceTimes& times) {
  return DumpJsonBytes({{"fastcuda_step_times", 1},
                        {"source", times.source_path},
                        {"day", times.day},
                        {"ms", times.ms},
                        {"peak_kib", times.peak_kib}}) +
         "\n";
}

std::optional<SourceTimes> ParseSourceTimes(std::string_view text, const std::string& source_path) {
  std::optional<SourceTimes> times = ParseAnySourceTimes(text);
  return times && times->source_path == source_path ? times : std::nullopt;
}

std::optional<SourceTimes> TimesOfMovedSource(const std::string& source_path,
                                              const std::vector<std::string>& files, const FileSystem& fs) {
  const std::filesystem::path wanted(source_path);
  const std::string prefix = wanted.filename().string() + "-";  // SourceTimesPath's names for that file name
  constexpr size_t kFewestShared = 2;  // the file name and its directory: a name alone is too common
  std::optional<SourceTimes> best;
  size_t best_shared = kFewestShared;
  for (const std::string& file : files) {
    if (!std::filesystem::path(file).filename().string().starts_with(prefix)) continue;
    std::optional<SourceTimes> times = ParseAnySourceTimes(fs.Read(file).value_or(""));
    if (!times || times->source_path == source_path) continue;
    const size_t shared = SharedTail(wanted, times->source_path);
    if (shared < best_shared || (shared == best_shared && best && best->day >= times->day)) continue;
    best = std::move(times);
    best_shared = shared;
  }
  return best;
}

bool IsMeasured(const NinjaLogRecord& record) {
  return record.start_ms != 0 || record.mtime != 0 || record.command_hash != 0;
}

std::map<std::string, int64_t> MeasuredTimes(const std::vector<NinjaLogRecord>& log,
                                             const std::map<std::string, std::string>& cache_outcomes) {
  std::map<std::string, int64_t> measured;
  for (const NinjaLogRecord& record : log) {
    if (IsMeasured(record)) measured[record.output] = record.end_ms - record.start_ms;
  }
  for (const auto& [output, outcome] : cache_outcomes) {
    if (outcome == "hit") measured.erase(output);
  }
  return measured;
}

bool RememberStepTimes(SourceTimes& times, const RecordedTu& tu,
                       const std::map<std::string, int64_t>& measured, const StepMemory& peaks,
                       int64_t today) {
  bool changed = times.day != today;
  auto remember = [&](std::map<std::string, int64_t>& into, const std::map<std::string, int64_t>& from,
                      const RecordedStep& step) {
    auto value = from.find(step.output);
    if (value == from.end()) return;
    auto [entry, added] = into.try_emplace(StepFileName(step), value->second);
    changed |= added || entry->second != value->second;
    entry->second = value->second;
  };
  for (const RecordedStep& step : tu.steps) {
    if (step.output.empty() || !measured.contains(step.output)) continue;  // a peak without a run: a hit's
    remember(times.ms, measured, step);
    remember(times.peak_kib, peaks, step);
  }
  times.day = today;
  return changed;
}

bool Remembers(const SourceTimes& times, const RecordedTu& tu) {
  return std::all_of(tu.steps.begin(), tu.steps.end(), [&](const RecordedStep& step) {
    // What FastCuda writes itself takes no time to rank by (the depfile that
    // a Makefile build asks for and a Ninja build of the sources did not).
    std::optional<StepKind> kind = StepKindNamed(step.kind);
    return step.output.empty() || RememberedOf(times.ms, step) || (kind && RunByFastcuda(*kind));
  });
}

std::vector<NinjaLogRecord> RememberedRecords(const SourceTimes& times, const RecordedTu& tu) {
  std::vector<NinjaLogRecord> records;
  for (const RecordedStep& step : tu.steps) {
    if (std::optional<int64_t> ms = RememberedOf(times.ms, step))
      records.push_back({0, *ms, 0, step.output, 0});
  }
  return records;
}

std::string RememberedMemoryLines(const SourceTimes& times, const RecordedTu& tu) {
  std::string lines;
  for (const RecordedStep& step : tu.steps) {
    if (std::optional<int64_t> kib = RememberedOf(times.peak_kib, step))
      lines += StepMemoryLine(step.output, *kib, 0);
  }
  return lines;
}

std::vector<NinjaLogRecord> MeanTuRecords(const std::vector<std::pair<RecordedTu, SourceTimes>>& known,
                                          const std::vector<RecordedTu>& unknown) {
  std::map<std::string, std::pair<int64_t, int64_t>> sum_and_count;  // by kind
  for (const auto& [tu, times] : known) {
    for (const RecordedStep& step : tu.steps) {
      if (std::optional<int64_t> ms = RememberedOf(times.ms, step)) {
        sum_and_count[step.kind].first += *ms;
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

void ForgetOldStepTimes(const std::string& dir, int64_t today, WritableFileSystem& fs) {
  if (fs.Read(ForgottenOnPath(dir)) == std::to_string(today)) return;
  static const RE2 named(R"(.*-[0-9a-f]{16}\.json)");
  for (const std::string& file : fs.FilesIn(dir)) {
    if (!RE2::FullMatch(file, named)) continue;
    std::optional<int64_t> day = DayWritten(fs.Read(file).value_or(""));
    if (day && *day < today - kForgetAfterDays) fs.Remove(file);
  }
  fs.Write(ForgottenOnPath(dir), std::to_string(today));
}

}  // namespace fastcuda

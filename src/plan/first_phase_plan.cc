#include "src/plan/first_phase_plan.h"

#include <algorithm>
#include <charconv>
#include <filesystem>
#include <sstream>
#include <stdexcept>

#include "src/base/stable_hash.h"
#include "src/graph/whole_call_cache.h"
#include "src/nvcc/step.h"
#include "src/plan/first_build_estimate.h"

namespace fastcuda {
namespace {

/// True when `tu`'s whole-call cache lookup has run and hit: the build
/// runs none of its other steps. Its result is named as Ninja, running in
/// `ninja_dir`, names it.
bool LookupHit(const RecordedTu& tu, const std::string& ninja_dir, const FileSystem& fs) {
  return !tu.steps.empty() && tu.steps.front().kind == StepKindName(StepKind::kCacheLookup) &&
         ReadsCacheHit(fs, ResolvePath(ninja_dir, tu.steps.front().output));
}

}  // namespace

std::vector<RecordedTu> TusToRank(const std::string& dir, const std::string& ninja_log_path,
                                  const std::string& mode, const FileSystem& fs) {
  if (mode == "off" || !fs.IsFile(NoHistoryPath(dir)) ||
      OnlyEstimated(ParseFirstPhase(fs.Read(FirstPhasePath(dir)).value_or("")),
                    fs.Read(ninja_log_path).value_or(""))) {
    return {};
  }
  std::optional<std::string> steps = fs.Read(StepsFilePath(dir));
  if (!steps) return {};
  std::vector<RecordedTu> tus = ParseStepsFile(*steps);
  const std::string ninja_dir = std::filesystem::path(ninja_log_path).parent_path().string();
  std::erase_if(tus, [&](const RecordedTu& tu) { return tu.on_request || LookupHit(tu, ninja_dir, fs); });
  return tus;
}

bool PhaseWeighs(const std::vector<RecordedTu>& tus, size_t remembered, unsigned jobs,
                 const std::string& mode) {
  if (remembered > 0) return false;
  return mode == "on" ? tus.size() >= 2 : FirstPhasePays(tus, jobs);
}

TusByHistory SplitByHistory(std::vector<RecordedTu> tus, const std::string& history_dir,
                            const WritableFileSystem& fs) {
  TusByHistory split;
  std::optional<std::vector<std::string>> files;  // listed once, for the first source not found by its path
  for (RecordedTu& tu : tus) {
    std::optional<SourceTimes> times;
    if (!history_dir.empty() && !tu.source_path.empty()) {
      times = ParseSourceTimes(fs.Read(SourceTimesPath(history_dir, tu.source_path)).value_or(""),
                               tu.source_path);
      if (!times) {
        if (!files) files = fs.FilesIn(history_dir);
        times = TimesOfMovedSource(tu.source_path, *files, fs);
      }
    }
    if (!times || !Remembers(*times, tu)) {
      split.unknown.push_back(std::move(tu));
      continue;
    }
    std::vector<NinjaLogRecord> records = RememberedRecords(*times, tu);
    split.remembered.insert(split.remembered.end(), records.begin(), records.end());
    split.known.emplace_back(std::move(tu), std::move(*times));
  }
  return split;
}

std::vector<NinjaLogRecord> RecordsToAppend(const TusByHistory& split,
                                            const std::optional<std::vector<int64_t>>& weights,
                                            const StepDurations& in_log) {
  std::vector<NinjaLogRecord> records = split.remembered;
  std::vector<NinjaLogRecord> estimates =
      split.known.empty() ? EstimateRecords(split.unknown, weights.value_or(std::vector<int64_t>{}), in_log)
                          : MeanTuRecords(split.known, split.unknown);
  records.insert(records.end(), estimates.begin(), estimates.end());
  std::erase_if(records, [&](const NinjaLogRecord& record) { return in_log.contains(record.output); });
  return records;
}

std::string LogEnd(std::string_view text) {
  const size_t tail = std::min<size_t>(text.size(), 64);
  return std::to_string(text.size()) + ":" + StableHashHex(text.substr(text.size() - tail), 16);
}

std::string_view TextSince(std::string_view text, const std::string& end) {
  size_t size = 0;  // the digits before ':'; none: 0
  std::from_chars(end.data(), end.data() + end.size(), size);
  const bool appended = size > 0 && size <= text.size() && LogEnd(text.substr(0, size)) == end;
  return text.substr(appended ? size : 0);
}

HistoryMark ReadHistoryMark(const std::string& dir, const FileSystem& fs) {
  HistoryMark mark;
  std::istringstream(fs.Read(StepHistoryMarkPath(dir)).value_or("")) >> mark.log_end >> mark.memory_end;
  return mark;
}

void WriteHistoryMark(const std::string& dir, std::string_view log, std::string_view memory,
                      WritableFileSystem& fs) {
  fs.Write(StepHistoryMarkPath(dir), LogEnd(log) + " " + LogEnd(memory) + "\n");
}

}  // namespace fastcuda

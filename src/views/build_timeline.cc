#include "src/views/build_timeline.h"

#include <algorithm>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "src/plan/critical_path.h"
#include "src/plan/graph_dir.h"
#include "src/plan/memory_budget.h"

namespace fastcuda {
namespace {

using nlohmann::json;

/// The records of the steps (outputs `is_step` accepts) in `text`, less the
/// copies `fastcuda ninja` appends when it hands an object over to the
/// generator's command and takes it back (log_handover.h): the same run,
/// another hash.
std::vector<NinjaLogRecord> StepRecords(std::string_view text,
                                        const std::function<bool(const std::string&)>& is_step) {
  std::vector<NinjaLogRecord> records = ParseNinjaLogRecords(text);
  std::map<std::string, std::pair<int64_t, int64_t>> last_run;
  std::erase_if(records, [&](const NinjaLogRecord& record) {
    if (!is_step(record.output)) return true;
    auto [it, first] = last_run.try_emplace(record.output, record.start_ms, record.end_ms);
    const bool copy = !first && it->second == std::pair{record.start_ms, record.end_ms};
    it->second = {record.start_ms, record.end_ms};
    return copy;
  });
  return records;
}

/// Where the last build of `records` begins: Ninja appends a record when an
/// edge ends, with times counted from the build's start, so end times only
/// grow within one build and drop when the next begins.
size_t LastBuildBegin(const std::vector<NinjaLogRecord>& records) {
  size_t first = 0;
  for (size_t i = 1; i < records.size(); ++i) {
    if (records[i].end_ms < records[i - 1].end_ms) first = i;
  }
  return first;
}

/// The Ninja run of each of `records` where the memory log's `runs` name it:
/// the n-th last record of an output is its n-th last run there (both logs
/// have a line per successful run), "" where that line names none.
std::vector<std::string> NinjaRunsOf(const std::vector<NinjaLogRecord>& records,
                                     const std::map<std::string, std::vector<std::string>>& runs) {
  std::vector<std::string> of(records.size());
  std::map<std::string, size_t> later;  // output: its records after the one at hand
  for (size_t i = records.size(); i-- > 0;) {
    auto found = runs.find(records[i].output);
    size_t after = later[records[i].output]++;
    if (found != runs.end() && after < found->second.size())
      of[i] = found->second[found->second.size() - 1 - after];
  }
  return of;
}

/// Where the last build begins in `records`, from `first` on: after the last
/// record of a run other than the last record's. The end times (LastBuildBegin)
/// do not drop where a quick build follows a slower one: its first steps end
/// later in its build than the last steps of the one before did in theirs.
size_t LastRunBegin(const std::vector<NinjaLogRecord>& records, size_t first,
                    const std::map<std::string, std::vector<std::string>>& runs) {
  std::vector<std::string> of = NinjaRunsOf(records, runs);
  if (of.empty() || of.back().empty()) return first;
  for (size_t i = of.size(); i-- > first;) {
    if (!of[i].empty() && of[i] != of.back()) return i + 1;
  }
  return first;
}

/// The step records of the last build that ran any steps (a build that only
/// regenerated the manifest and stamped the priority ladder's rungs is no
/// build to show), told apart by the end times and the steps' Ninja runs
/// (`runs`). A first build whose first phase `phase` describes is both
/// Ninja runs: the first phase's records, then the build's, moved to when it
/// started.
std::vector<NinjaLogRecord> LastBuildRecords(std::string_view text,
                                             const std::function<bool(const std::string&)>& is_step,
                                             const std::optional<FirstPhase>& phase,
                                             const std::map<std::string, std::vector<std::string>>& runs) {
  if (phase && EstimatesInPlace(*phase, text)) {
    std::vector<NinjaLogRecord> build = StepRecords(text.substr(phase->build_begin), is_step);
    if (LastBuildBegin(build) == 0) {
      std::vector<NinjaLogRecord> records = StepRecords(text.substr(0, phase->estimates_begin), is_step);
      records.erase(records.begin(), records.begin() + static_cast<std::ptrdiff_t>(LastBuildBegin(records)));
      for (NinjaLogRecord& record : build) {
        record.start_ms += phase->build_start_ms;
        record.end_ms += phase->build_start_ms;
        records.push_back(std::move(record));
      }
      return records;
    }
  }
  std::vector<NinjaLogRecord> records = StepRecords(text, is_step);
  return {records.begin() + static_cast<std::ptrdiff_t>(LastRunBegin(records, LastBuildBegin(records), runs)),
          records.end()};
}

}  // namespace

std::string Timeline::Name(const TimedStep& timed) const {
  const RecordedStep& step = Step(timed);
  std::string name = step.kind;
  if (!step.arch.empty()) name += " " + step.arch;
  return name + " " + std::filesystem::path(tus[timed.tu].source).filename().string();
}

Timeline BuildTimeline(std::vector<RecordedTu> tus, std::string_view ninja_log, std::string_view memory_log,
                       const std::function<int64_t(const std::string&)>& file_size,
                       const std::optional<FirstPhase>& first_phase) {
  Timeline timeline;
  timeline.tus = std::move(tus);
  std::map<std::string, std::pair<size_t, size_t>> by_output;
  for (size_t t = 0; t < timeline.tus.size(); ++t) {
    for (size_t s = 0; s < timeline.tus[t].steps.size(); ++s) {
      by_output[timeline.tus[t].steps[s].output] = {t, s};
    }
  }
  StepMemoryRecords memory = ParseStepMemoryRecords(memory_log);
  auto is_step = [&](const std::string& output) { return by_output.count(output) > 0; };
  for (const NinjaLogRecord& record : LastBuildRecords(ninja_log, is_step, first_phase, memory.ninja_runs)) {
    auto step = by_output.find(record.output);
    auto peak = memory.peaks.find(record.output);
    auto cache = memory.cache_outcomes.find(record.output);
    timeline.steps.push_back({step->second.first, step->second.second, record.start_ms, record.end_ms,
                              peak == memory.peaks.end() ? 0 : peak->second, file_size(record.output),
                              cache == memory.cache_outcomes.end() ? "" : cache->second});
    timeline.wall_ms = std::max(timeline.wall_ms, record.end_ms);
  }
  std::stable_sort(timeline.steps.begin(), timeline.steps.end(),
                   [](const TimedStep& a, const TimedStep& b) { return a.start_ms < b.start_ms; });
  return timeline;
}

std::vector<size_t> CriticalChain(const Timeline& timeline) {
  std::map<std::pair<size_t, size_t>, size_t> ran;  // (tu, index) -> position in steps
  for (size_t i = 0; i < timeline.steps.size(); ++i) {
    ran[{timeline.steps[i].tu, timeline.steps[i].index}] = i;
  }
  std::vector<size_t> chain;
  if (timeline.steps.empty()) return chain;
  size_t current = 0;
  for (size_t i = 1; i < timeline.steps.size(); ++i) {
    if (timeline.steps[i].end_ms > timeline.steps[current].end_ms) current = i;
  }
  while (true) {
    chain.push_back(current);
    const TimedStep& step = timeline.steps[current];
    std::optional<size_t> latest;
    for (size_t before : timeline.Step(step).after) {
      auto it = ran.find({step.tu, before});
      if (it == ran.end()) continue;
      if (!latest || timeline.steps[it->second].end_ms > timeline.steps[*latest].end_ms) {
        latest = it->second;
      }
    }
    if (!latest) break;
    current = *latest;
  }
  std::reverse(chain.begin(), chain.end());
  return chain;
}

std::vector<int64_t> LongestChainPerTu(const Timeline& timeline) {
  std::vector<std::map<size_t, int64_t>> duration(timeline.tus.size());
  for (const TimedStep& step : timeline.steps) duration[step.tu][step.index] = step.end_ms - step.start_ms;
  std::vector<int64_t> longest(timeline.tus.size(), 0);
  for (size_t t = 0; t < timeline.tus.size(); ++t) {
    const std::vector<RecordedStep>& steps = timeline.tus[t].steps;
    std::vector<int64_t> finish(steps.size(), 0);  // steps are in a topological order (ParseStepsFile)
    for (size_t s = 0; s < steps.size(); ++s) {
      int64_t start = 0;
      for (size_t before : steps[s].after) start = std::max(start, finish[before]);
      auto it = duration[t].find(s);
      finish[s] = start + (it == duration[t].end() ? 0 : it->second);
      longest[t] = std::max(longest[t], finish[s]);
    }
  }
  return longest;
}

std::vector<size_t> JobSlots(const Timeline& timeline) {
  std::vector<int64_t> busy_until;  // per slot
  std::vector<size_t> slots;
  for (const TimedStep& step : timeline.steps) {
    size_t slot = 0;
    while (slot < busy_until.size() && busy_until[slot] > step.start_ms) ++slot;
    if (slot == busy_until.size()) busy_until.push_back(0);
    busy_until[slot] = step.end_ms;
    slots.push_back(slot);
  }
  return slots;
}

}  // namespace fastcuda

#include "src/cli/first_phase.h"

#include <algorithm>
#include <chrono>
#include <stdexcept>

#include "src/base/command_io.h"
#include "src/base/machine.h"
#include "src/base/ninja_jobs.h"
#include "src/base/parallel_for.h"
#include "src/base/process.h"
#include "src/base/toolchain_environment.h"
#include "src/cli/commands.h"
#include "src/plan/first_build_estimate.h"
#include "src/plan/first_phase_plan.h"
#include "src/plan/step_history.h"

namespace fastcuda {
namespace {

/// Runs the first phase on `tus` through `run_ninja`: each TU's
/// DeviceCodeWeight, -1 where it has none (a failed step); none where no TU
/// has device code. `status` gets Ninja's where a signal stopped it, else 0.
std::optional<std::vector<int64_t>> Weigh(const std::vector<RecordedTu>& tus, unsigned jobs,
                                          const std::string& ninja_dir, const RunNinjaFor& run_ninja,
                                          const CommandIo& io, int& status) {
  std::vector<std::string> weighed(tus.size());  // each TU's WeighedStepOf output; empty: none
  std::vector<std::string> targets;
  for (size_t t = 0; t < tus.size(); ++t) {
    if (std::optional<size_t> step = WeighedStepOf(tus[t]))
      targets.push_back(weighed[t] = tus[t].steps[*step].output);
  }
  if (targets.empty()) return std::nullopt;
  std::vector<int64_t> weights(tus.size(), -1);
  // A TU whose step failed (a source that the outer build has yet to
  // generate) has no output to weigh: it is estimated as the mean TU.
  if (int ninja = run_ninja(targets); ninja != 0) {
    if (ReceivedSignal()) {
      status = ninja;
      return weights;
    }
    ComplainIfVerbose(io.environment, "the first phase failed (" + std::to_string(ninja) +
                                          ") for some TUs: they get mean estimates");
  }
  // Megabytes of preprocessed code each: read on every core, as the build waits.
  ParallelFor(tus.size(), jobs, [&](size_t t) {
    if (weighed[t].empty()) return;
    if (std::optional<std::string> text = io.fs.Read(ResolvePath(ninja_dir, weighed[t]))) {
      weights[t] = DeviceCodeWeight(*text);
    }
  });
  return weights;
}

/// Runs `work`, which keeps the step history: where it fails (an unwritable
/// cache directory, a torn steps.json) that costs rankings, never the build.
void KeepingTheBuild(const std::map<std::string, std::string>& environment,
                     const std::function<void()>& work) {
  try {
    work();
  } catch (const std::runtime_error& error) {
    ComplainIfVerbose(environment, std::string("step times not remembered: ") + error.what());
  }
}

/// Days since the epoch, today.
int64_t Today() {
  return std::chrono::floor<std::chrono::days>(std::chrono::system_clock::now()).time_since_epoch().count();
}

/// Ninja's log at `log_path`; where there is none yet (no phase ran Ninja:
/// every TU remembered), started as the Ninja that will run writes it.
std::string LogToAppendTo(const std::string& log_path, const CommandIo& io) {
  std::string log = io.fs.Read(log_path).value_or("");
  if (log.empty()) {
    log = NinjaLogHeader(NinjaMinorVersion(io.runner, NinjaProgram(io.environment)));
    io.fs.Append(log_path, log);
  }
  return log;
}

}  // namespace

int RunFirstPhase(const std::string& dir, unsigned jobs, const RunNinjaFor& run_ninja,
                  const std::function<int()>& regenerate, const CommandIo& io) {
  WritableFileSystem& fs = io.fs;
  if (!jobs) jobs = MachineLimitsHere(fs).cpus;
  const std::string log_path = GraphNinjaLogPath(dir, fs);
  const std::string mode = EnvironmentValue(io.environment, "FASTCUDA_FIRST_PHASE", "auto");
  std::vector<RecordedTu> tus;
  try {
    tus = TusToRank(dir, log_path, mode, fs);
  } catch (const std::runtime_error& unreadable) {  // torn, or an older FastCuda's, read before regenerating
    ComplainIfVerbose(io.environment, std::string("no first phase: ") + unreadable.what());
    return 0;
  }
  if (tus.empty()) return 0;
  const auto start = std::chrono::steady_clock::now();
  const std::string history_dir = StepHistoryDir(io.environment);
  TusByHistory split = SplitByHistory(std::move(tus), history_dir, fs);
  if (!history_dir.empty())
    KeepingTheBuild(io.environment, [&] { ForgetOldStepTimes(history_dir, Today(), fs); });
  const bool weighs = PhaseWeighs(split.unknown, split.known.size(), jobs, mode);
  if (!weighs && split.known.empty()) return 0;
  // Outputs are named as Ninja names them, relative to where it runs.
  const std::string ninja_dir = std::filesystem::path(log_path).parent_path().string();
  std::optional<std::vector<int64_t>> weights;
  if (weighs) {
    int stopped = 0;
    weights = Weigh(split.unknown, jobs, ninja_dir, run_ninja, io, stopped);
    if (stopped != 0) return stopped;
    if (!weights && split.known.empty()) return 0;  // no device code: nothing to rank
  }
  const std::string log = LogToAppendTo(log_path, io);
  if (NinjaLogVersion(log) == 0) return 0;  // not a log to write estimates into
  const std::vector<NinjaLogRecord> records = RecordsToAppend(split, weights, ParseNinjaLog(log));
  if (records.empty()) return 0;
  if (!split.known.empty()) {
    ComplainIfVerbose(io.environment, "ranked by the step times of an earlier build elsewhere: " +
                                          std::to_string(split.known.size()) + " of " +
                                          std::to_string(split.known.size() + split.unknown.size()) +
                                          " TUs (" + history_dir + ")");
  }
  std::string peaks;
  for (const auto& [tu, times] : split.known) peaks += RememberedMemoryLines(times, tu);
  fs.Write(RememberedMemoryPath(dir), peaks);  // for the regeneration's memory budget
  std::string text;
  for (const NinjaLogRecord& record : records) text += FormatNinjaLogRecord(record);
  fs.Append(log_path, text);
  FirstPhase phase{log.size(), log.size() + text.size(), 0};
  fs.Write(FirstPhasePath(dir), FormatFirstPhase(phase));  // the generation finds the times estimated
  const int status = regenerate();
  phase.build_start_ms =
      std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - start).count();
  fs.Write(FirstPhasePath(dir), FormatFirstPhase(phase));
  return status;
}

void RememberBuild(const std::string& dir, const CommandIo& io) {
  WritableFileSystem& fs = io.fs;
  const std::string history_dir = StepHistoryDir(io.environment);
  if (history_dir.empty()) return;
  const std::string log = fs.Read(GraphNinjaLogPath(dir, fs)).value_or("");
  const HistoryMark mark = ReadHistoryMark(dir, fs);
  if (log.empty() || LogEnd(log) == mark.log_end) return;  // no build since the last time
  const std::string memory = fs.Read(StepMemoryLogPath(dir)).value_or("");
  const StepMemoryRecords peaks = ParseStepMemoryRecords(TextSince(memory, mark.memory_end));
  const std::map<std::string, int64_t> measured =
      MeasuredTimes(ParseNinjaLogRecords(TextSince(log, mark.log_end)), peaks.cache_outcomes);
  std::optional<std::string> steps = fs.Read(StepsFilePath(dir));
  if (!steps) return;
  KeepingTheBuild(io.environment, [&] {
    const int64_t today = Today();
    for (const RecordedTu& tu : ParseStepsFile(*steps)) {
      if (tu.source_path.empty() ||
          std::none_of(tu.steps.begin(), tu.steps.end(),
                       [&](const RecordedStep& step) { return measured.contains(step.output); })) {
        continue;
      }
      const std::string path = SourceTimesPath(history_dir, tu.source_path);
      SourceTimes times =
          ParseSourceTimes(fs.Read(path).value_or(""), tu.source_path).value_or(SourceTimes{tu.source_path});
      if (RememberStepTimes(times, tu, measured, peaks.peaks, today))
        fs.Write(path, FormatSourceTimes(times));
    }
    WriteHistoryMark(dir, log, memory, fs);
  });
}

void SkipRecordsOfNoBuild(const std::string& dir, const CommandIo& io) {
  WritableFileSystem& fs = io.fs;
  if (StepHistoryDir(io.environment).empty()) return;
  KeepingTheBuild(io.environment, [&] {
    WriteHistoryMark(dir, fs.Read(GraphNinjaLogPath(dir, fs)).value_or(""),
                     fs.Read(StepMemoryLogPath(dir)).value_or(""), fs);
  });
}

}  // namespace fastcuda

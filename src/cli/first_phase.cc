#include "src/cli/first_phase.h"

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <stdexcept>
#include <thread>

#include "src/base/parallel_for.h"
#include "src/base/process.h"
#include "src/cli/commands.h"
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

/// The graph's TUs when the first phase should run: a graph generated
/// without measured step times (NoHistoryPath; its caller regenerated first
/// if the log grew since), whose log does not hold a first phase's estimates
/// already, where it pays (FirstPhasePays) or FASTCUDA_FIRST_PHASE says "on",
/// counting only the TUs that the build needs (not those built on request)
/// and whose lookup (if any) did not hit.
std::vector<RecordedTu> TusToWeigh(const std::string& dir, unsigned jobs, const std::string& ninja_log_path,
                                   const FileSystem& fs) {
  const std::string wanted = EnvironmentVariable("FASTCUDA_FIRST_PHASE", "auto");
  if (wanted == "off" || !fs.IsFile(NoHistoryPath(dir)) ||
      OnlyEstimated(ParseFirstPhase(fs.Read(FirstPhasePath(dir)).value_or("")),
                    fs.Read(ninja_log_path).value_or(""))) {
    return {};
  }
  std::optional<std::string> steps = fs.Read(StepsFilePath(dir));
  if (!steps) return {};
  std::vector<RecordedTu> tus;
  try {
    tus = ParseStepsFile(*steps);
  } catch (const std::runtime_error& unreadable) {  // torn, or an older FastCuda's, read before regenerating
    ComplainIfVerbose(std::string("no first phase: ") + unreadable.what());
    return {};
  }
  const std::string ninja_dir = std::filesystem::path(ninja_log_path).parent_path().string();
  std::erase_if(tus, [&](const RecordedTu& tu) { return tu.on_request || LookupHit(tu, ninja_dir, fs); });
  const bool pays = wanted == "on" ? tus.size() >= 2 : FirstPhasePays(tus.size(), jobs);
  return pays ? tus : std::vector<RecordedTu>{};
}

}  // namespace

int RunFirstPhase(const std::string& dir, unsigned jobs, const RunNinjaFor& run_ninja,
                  const std::function<int()>& regenerate, WritableFileSystem& fs) {
  if (!jobs) jobs = std::max(1u, std::thread::hardware_concurrency());
  const std::string log_path = GraphNinjaLogPath(dir, fs);
  std::vector<RecordedTu> tus = TusToWeigh(dir, jobs, log_path, fs);
  std::vector<std::string> weighed(tus.size());  // each TU's WeighedStepOf output; empty: none
  std::vector<std::string> targets;
  for (size_t t = 0; t < tus.size(); ++t) {
    if (std::optional<size_t> step = WeighedStepOf(tus[t]))
      targets.push_back(weighed[t] = tus[t].steps[*step].output);
  }
  if (targets.empty()) return 0;
  const auto start = std::chrono::steady_clock::now();
  // A TU whose step failed (a source that the outer build has yet to
  // generate) has no output to weigh: it is estimated as the mean TU.
  if (int status = run_ninja(targets); status != 0) {
    if (ReceivedSignal()) return status;
    ComplainIfVerbose("the first phase failed (" + std::to_string(status) +
                      ") for some TUs: they get mean estimates");
  }
  // Outputs are named as Ninja names them, relative to where it runs.
  const std::string ninja_dir = std::filesystem::path(log_path).parent_path().string();
  // Megabytes of preprocessed code each: read on every core, as the build waits.
  std::vector<int64_t> weights(tus.size(), -1);
  ParallelFor(tus.size(), jobs, [&](size_t t) {
    if (weighed[t].empty()) return;
    if (std::optional<std::string> text = fs.Read(ResolvePath(ninja_dir, weighed[t]))) {
      weights[t] = DeviceCodeWeight(*text);
    }
  });
  const std::string log = fs.Read(log_path).value_or("");
  if (NinjaLogVersion(log) == 0) return 0;  // no log to write estimates into
  std::string estimates;
  for (const NinjaLogRecord& record : EstimateRecords(tus, weights, ParseNinjaLog(log))) {
    estimates += FormatNinjaLogRecord(record);
  }
  fs.Append(log_path, estimates);
  FirstPhase phase{log.size(), log.size() + estimates.size(), 0};
  fs.Write(FirstPhasePath(dir), FormatFirstPhase(phase));  // the generation finds the times estimated
  const int status = regenerate();
  phase.build_start_ms =
      std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - start).count();
  fs.Write(FirstPhasePath(dir), FormatFirstPhase(phase));
  return status;
}

}  // namespace fastcuda

// `fastcuda NVCC ARGS...`: a drop-in nvcc whose sub-steps Ninja runs in parallel.
#include <algorithm>
#include <csignal>
#include <filesystem>
#include <iostream>
#include <optional>

#include "ninja-gen/fragment.h"
#include "ninja-gen/ninja_writer.h"
#include "src/base/build_load.h"
#include "src/base/command_io.h"
#include "src/base/depfile.h"
#include "src/base/directory_lock.h"
#include "src/base/file_system.h"
#include "src/base/kept_depfile.h"
#include "src/base/machine.h"
#include "src/base/ninja_jobs.h"
#include "src/base/process.h"
#include "src/base/toolchain_environment.h"
#include "src/cli/call_manifest.h"
#include "src/cli/commands.h"
#include "src/cli/graph_launcher.h"
#include "src/cli/launcher.h"
#include "src/cli/progress_output.h"
#include "src/cli/run_ninja.h"
#include "src/graph/kept_intermediates.h"
#include "src/graph/launchers.h"
#include "src/graph/whole_call_cache.h"
#include "src/nvcc/compile_database.h"
#include "src/nvcc/nvcc_options.h"
#include "src/nvcc/step.h"
#include "src/plan/graph_dir.h"
#include "src/plan/memory_budget.h"
#include "src/plan/nvcc_call.h"
#include "src/plan/step_protocol.h"
#include "src/plan/tu_record.h"

namespace fastcuda {
namespace {

/// How long one call's graph runs before its progress shows: most calls
/// end sooner and show none.
constexpr std::chrono::milliseconds kLauncherProgressDelay{2000};

/// Runs nvcc itself, as the launcher does for modes it does not split.
[[noreturn]] void RunNvccItself(const std::vector<std::string>& args, const std::string& why,
                                const std::map<std::string, std::string>& environment) {
  ComplainIfVerbose(environment, "running nvcc itself: " + why);
  ExecProcess(args);
}

/// ReplayCaptures of the steps of a launcher's own graph.
int ReplayStepOutput(const StepGraph& graph, const FragmentOptions& options, const FileSystem& fs) {
  std::vector<std::string> captures;
  for (size_t i = 0; i < graph.steps.size(); ++i)
    captures.push_back(CapturePath(options.capture_dir, graph, i));
  return ReplayCaptures(captures, fs);
}

/// After a failure, as nvcc leaves no object of a failed compile.
void RemoveOutputs(const StepGraph& graph, WritableFileSystem& fs) {
  for (const std::string& output : graph.final_outputs) {
    fs.Remove(ResolvePath(graph.cwd, output));
  }
}

/// After success, as nvcc writes its outputs on every run: restat in the
/// call's graph keeps an object that came out the same with its old mtime,
/// and a compile rule without restat (CMake's) would find it older than the
/// header that made it call, on every later build.
void TouchFinalOutputs(const StepGraph& graph, WritableFileSystem& fs) {
  for (const std::string& output : graph.final_outputs) {
    std::string path = ResolvePath(graph.cwd, output);
    if (fs.IsFile(path)) fs.Touch(path);
  }
}

/// A directory that an output of the call would go to and that does not
/// exist. nvcc fails there; FastCuda, which creates its work directory beside
/// the output, would create it and succeed.
std::optional<std::string> MissingOutputDirectory(const StepGraph& graph) {
  for (const std::string& output : graph.final_outputs) {
    std::filesystem::path directory = std::filesystem::path(ResolvePath(graph.cwd, output)).parent_path();
    if (!std::filesystem::is_directory(directory)) return directory.string();
  }
  return std::nullopt;
}

}  // namespace

int ReplayCaptures(const std::vector<std::string>& captures, const FileSystem& fs) {
  for (const std::string& prefix : captures) {
    std::optional<CapturedOutput> captured = ReadCapture(prefix, fs);
    if (!captured) continue;
    std::cout << captured->stdout_text << std::flush;
    std::cerr << captured->stderr_text << std::flush;
    if (captured->exit_code != 0) return captured->exit_code;
  }
  return 0;
}

int ExitLikeNvccOn(int signal) {
  if (signal == SIGTERM) return 255;
  std::signal(signal, SIG_DFL);
  std::raise(signal);
  return 128 + signal;
}

LauncherCall ParseLauncherCall(const std::vector<std::string>& args) {
  LauncherCall call;
  size_t start = 0;
  if (args.size() > 2 && (args[0] == "--graph" || args[0] == "--build-graph")) {
    call.graph_dir = args[1];
    call.builds_graph = args[0] == "--build-graph";
    start = 2;
  }
  // Words before the first one that is nvcc are launchers, if nvcc is there
  // at all (NVCC may be a path to an nvcc of another name).
  size_t nvcc = start;
  for (size_t i = start; i < args.size() && args[i].rfind('-', 0) != 0; ++i) {
    if (IsNvcc(args[i])) {
      nvcc = i;
      break;
    }
  }
  if (nvcc >= args.size()) throw std::invalid_argument("no nvcc command given");
  call.launcher.assign(args.begin() + start, args.begin() + nvcc);
  call.nvcc.assign(args.begin() + nvcc, args.end());
  return call;
}

bool RecordIsOfCall(const std::optional<TuRecord>& record, const LauncherCall& call, const std::string& cwd) {
  return record && record->cwd == cwd &&
         record->command_hash == TuCommandHash(WithoutDepfileOptions(call.nvcc));
}

std::optional<TuRecord> UseGraphResult(const LauncherCall& call, const std::string& cwd,
                                       WritableFileSystem& fs) {
  std::vector<std::string> outputs = FlagValues(call.nvcc, {"-o", "--output-file"});
  if (outputs.empty()) return std::nullopt;
  const std::string& output = outputs.back();
  std::string object = ResolvePath(cwd, output);
  std::optional<TuRecord> record = ReadTuRecord(fs, call.graph_dir, object);
  if (!RecordIsOfCall(record, call, cwd)) return std::nullopt;
  // After a whole-call cache's hit the kept preprocess depfiles are an
  // earlier miss's, or gone: the lookup's holds the headers. The steps but
  // the lookup and the object's copy did not run: their files may be none.
  const bool hit = !record->cache_result.empty() && ReadsCacheHit(fs, record->cache_result);
  // A step of the TU failed or was stopped in the graph's last build (make
  // -k goes on after it): the object, if any, is an older build's.
  if (!hit && std::any_of(record->landmarks.begin(), record->landmarks.end(),
                          [&](const std::string& landmark) { return !fs.IsFile(landmark); })) {
    return std::nullopt;
  }
  std::optional<std::filesystem::file_time_type> object_time = fs.MTime(object);
  if (!object_time) return std::nullopt;
  std::filesystem::file_time_type newest = *object_time;
  std::vector<Depfile> parts;
  for (const std::string& path : hit ? std::vector<std::string>{record->cache_depfile} : record->depfiles) {
    std::optional<std::vector<std::string>> kept = KeptDependencies(fs, path, record->source);
    std::optional<std::filesystem::file_time_type> seen = fs.MTime(path);
    if (!kept || !seen) return std::nullopt;
    parts.push_back({{}, std::move(*kept)});
    for (const std::string& dependency : parts.back().dependencies) {
      std::optional<std::filesystem::file_time_type> time = fs.MTime(ResolvePath(cwd, dependency));
      if (!time || *time > *seen) return std::nullopt;
      newest = std::max(newest, *time);
    }
  }
  if (newest != *object_time) fs.SetMTime(object, newest);
  std::vector<std::string> dependencies = UnionOfDependencies(parts);
  if (std::optional<std::string> depfile = RequestedDepfile(call.nvcc, output)) {
    DepfileRequest request = ScanNvccArgs(call.nvcc).depfile;
    fs.Write(ResolvePath(cwd, *depfile),
             FormatDepfile({{request.target.empty() ? output : request.target}, dependencies},
                           request.phony_targets));
  }
  return record;
}

int LauncherMain(const std::vector<std::string>& all_args, const CommandIo& io) {
  const std::string cwd = std::filesystem::current_path().string();
  LauncherCall call = ParseLauncherCall(all_args);
  WritableFileSystem& disk = io.fs;
  if (call.builds_graph) {
    if (std::optional<int> status = BuildThroughGraph(call, cwd, io)) return *status;
  } else if (!call.graph_dir.empty() && UseGraphResult(call, cwd, disk)) {
    return 0;
  }
  const std::vector<std::string>& args = call.nvcc;
  const std::vector<std::string> nvcc_args(args.begin() + 1, args.end());
  const std::map<std::string, std::string>& environment = io.environment;
  StepLaunchers launchers = LaunchersFrom(environment, RemoteClientExecutable());
  launchers.nvcc = call.launcher;
  AddLauncherVersions(launchers, VersionProbeOf(io.runner));
  std::cerr << UnversionedLaunchersReport(launchers.versions);
  NvccPlan plan = PlanNvccCall({args.front(), nvcc_args, cwd, environment}, LauncherWorkDir, launchers,
                               CompileModesFrom(environment), NvccDryrunRunner(io.runner, environment), disk);
  auto run_nvcc_itself = [&](const std::string& why) {
    std::vector<std::string> whole = call.launcher;
    whole.insert(whole.end(), args.begin(), args.end());
    RunNvccItself(whole, why, environment);
  };
  if (!plan.graph) run_nvcc_itself(plan.fallback_reason);
  AddWholeCallCache(*plan.graph, call.launcher, args);
  const StepGraph& graph = *plan.graph;
  if (std::optional<std::string> missing = MissingOutputDirectory(graph)) {
    run_nvcc_itself("no directory " + *missing + " for an output");
  }
  std::cerr << plan.dryrun_other_output << std::flush;

  FragmentOptions options;
  options.fastcuda = SelfExecutable();
  options.env_file = EnvFilePath(graph.work_dir);
  options.ninja_cwd = cwd;
  options.capture_dir = CaptureDir(graph.work_dir);
  options.rerun_preprocessing = true;
  std::string manifest = GlobalManifestPath(graph.work_dir);
  unsigned jobs = ParseJobCount(EnvironmentValue(environment, "FASTCUDA_JOBS", "0"), "FASTCUDA_JOBS");
  const MachineLimits machine = MachineLimitsHere(disk);
  PoolDepths pools = GraphPools(EnvironmentValue(environment, "FASTCUDA_POOLS"), launchers,
                                CompileModesFrom(environment).module_id, environment, machine.cpus);
  // Calls for one object run one after another, as each nvcc call would
  // write the object whole; Ninja holds the lock until its last step ends.
  std::optional<DirectoryLock> lock;
  try {
    lock.emplace(graph.work_dir, kWorkDirLockName);
  } catch (const std::exception& unwritable) {  // nvcc fails there too, with the assembler's message
    run_nvcc_itself(std::string("no work directory: ") + unwritable.what());
  }
  for (const std::string& path : OrphanedIntermediates({KeptFilesOf(graph)}, disk)) {
    disk.Remove(path);
  }
  try {
    WriteCallManifest(graph, options, pools, graph.work_dir, PlanLimits(environment, jobs, machine), disk);
  } catch (const UnnameablePath& unnameable) {
    run_nvcc_itself(unnameable.what());
  }

  NinjaRun ninja;
  ninja.manifest = manifest;
  ninja.cwd = cwd;
  ninja.jobs = jobs;
  ninja.quiet = ninja.capture = true;
  ninja.lock_fd = lock->fd();
  // As a job of a Ninja, which prints this call's output when it ends: a
  // call that takes long shows its steps' progress on that Ninja's output.
  GraphProgress shown;
  if (std::optional<EnclosingNinjaProcess> outer = EnclosingNinjaHere(disk))
    shown = ProgressUnderNinja(outer->process, kLauncherProgressDelay, environment, disk);
  ninja.progress = shown.progress.get();
  ProcessResult result = RunNinja(ninja, io);
  shown.progress.reset();  // its line erased before this call prints
  int step_failure = ReplayStepOutput(graph, options, disk);
  if (step_failure != 0 || result.exit_code != 0) RemoveOutputs(graph, disk);
  if (int signal = ReceivedSignal()) return ExitLikeNvccOn(signal);
  if (step_failure != 0) return step_failure;
  if (result.exit_code != 0) {
    Complain("ninja failed on " + manifest + ":\n" + result.stdout_text + result.stderr_text);
    return result.exit_code;
  }
  TouchFinalOutputs(graph, disk);
  return 0;
}

}  // namespace fastcuda

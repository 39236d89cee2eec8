#include "src/cli/graph_launcher.h"

#include <algorithm>
#include <filesystem>

#include "src/base/build_load.h"
#include "src/base/directory_lock.h"
#include "src/base/file_system.h"
#include "src/base/machine.h"
#include "src/base/ninja_command_line.h"
#include "src/base/ninja_jobs.h"
#include "src/base/process.h"
#include "src/base/shell_words.h"
#include "src/cli/build_command.h"
#include "src/cli/commands.h"
#include "src/cli/first_phase.h"
#include "src/cli/gen_options.h"
#include "src/cli/lookup_pass.h"
#include "src/cli/progress_output.h"
#include "src/cli/run_ninja.h"
#include "src/graph/launchers.h"
#include "src/nvcc/nvcc_options.h"
#include "src/plan/graph_dir.h"
#include "src/plan/launcher_build.h"
#include "src/plan/nvcc_call.h"
#include "src/plan/tu_record.h"

namespace fastcuda {
namespace {

/// How long the graph runs before its progress shows: a short build shows none.
constexpr std::chrono::milliseconds kGraphProgressDelay{1000};

/// "PID START_TICKS" of the Ninja this call is a job of: one outer build.
std::string OuterBuildId(const EnclosingNinjaProcess& ninja) {
  return std::to_string(ninja.process.pid) + " " + std::to_string(ninja.process.start_ticks);
}

/// The objects of the graph that the outer build needs; every object of the
/// graph where Ninja cannot say.
std::vector<std::string> ObjectsTheOuterBuildNeeds(const EnclosingNinjaProcess& ninja,
                                                   const std::vector<GraphObject>& objects,
                                                   const CommandIo& io) {
  NinjaCommandLine line = ParseNinjaCommandLine(ninja.process.argv);
  // The outer Ninja's own binary: its manifest may need its version.
  std::string program = "/proc/" + std::to_string(ninja.process.pid) + "/exe";
  std::error_code unreadable;
  program = std::filesystem::read_symlink(program, unreadable).string();
  if (unreadable) program = NinjaProgram(io.environment);
  std::string error;
  std::optional<TargetNeeds> needs =
      AskTargetNeeds(program, ninja.cwd, line.manifest, line.targets, io.runner, error);
  if (!needs) {
    ComplainIfVerbose(io.environment, "building every TU of the graph: `ninja -t inputs` failed: " + error);
    std::vector<std::string> all;
    for (const GraphObject& tu : objects) all.push_back(tu.object);
    return all;
  }
  return ObjectsInScope(objects, needs->paths, needs->caret_sources);
}

/// Runs the graph's Ninja for `targets` (none: the default, every object and
/// the priority ladder), its output collected, its status shown on `progress`
/// (where not null).
ProcessResult RunGraph(const GenOptions& options, const std::vector<std::string>& targets, bool keep_going,
                       int lock_fd, BuildProgress* progress, const CommandIo& io) {
  NinjaRun ninja;
  ninja.dir = options.out_dir;
  ninja.jobs = GraphNinjaJobs(options, VersionedLaunchers(options.launchers, VersionProbeOf(io.runner)),
                              io.environment, MachineLimitsHere(io.fs).cpus);
  ninja.quiet = ninja.capture = true;
  ninja.lock_fd = lock_fd;
  ninja.keep_going = keep_going;
  ninja.targets = targets;
  ninja.progress = progress;
  return RunNinja(ninja, io);
}

}  // namespace

std::optional<int> BuildThroughGraph(const LauncherCall& call, const std::string& cwd, const CommandIo& io) {
  std::vector<std::string> outputs = FlagValues(call.nvcc, {"-o", "--output-file"});
  if (outputs.empty()) return std::nullopt;
  const std::string object = ResolvePath(cwd, outputs.back());
  const std::string& dir = call.graph_dir;
  WritableFileSystem& disk = io.fs;
  std::optional<EnclosingNinjaProcess> ninja = EnclosingNinjaHere(disk);
  const std::string outer_build = ninja ? OuterBuildId(*ninja) : "";
  // As nvcc would, the call leaves a new object: restat in the graph keeps
  // an unchanged object's old mtime, which the outer Ninja would find older
  // than an input that is in no depfile (the toolchain stamp, a target's
  // OBJECT_DEPENDS) on every later build.
  auto succeeded = [&](const TuRecord& record) {
    disk.Touch(object);
    return ReplayCaptures(record.captures, disk);
  };
  // The object as this outer build's run of the graph left it: nvcc's output.
  auto built_for_this_build = [&]() -> std::optional<int> {
    std::optional<LauncherBuild> build = ParseLauncherBuild(disk.Read(LauncherBuildPath(dir)).value_or(""));
    if (!build || !BuiltForThisBuild(*build, outer_build, object)) return std::nullopt;
    std::optional<TuRecord> record = UseGraphResult(call, cwd, disk);
    if (!record) return std::nullopt;
    return succeeded(*record);
  };
  {
    DirectoryLock reading(dir, kGraphLockName, {}, LockKind::kShared);
    if (std::optional<int> status = built_for_this_build()) return status;
  }
  DirectoryLock lock(dir, kGraphLockName);
  if (std::optional<int> status = built_for_this_build()) return status;
  // This call builds, and the outer Ninja shows what it prints only when it
  // ends: the graph's progress goes to that Ninja's own output meanwhile.
  GraphProgress shown;
  if (ninja) shown = ProgressUnderNinja(ninja->process, kGraphProgressDelay, io.environment, disk);
  BuildProgress* progress = shown.progress.get();
  // A signal ends this process at once (as nvcc's end): the line goes first.
  auto end_on_signal = [&] {
    shown.progress.reset();
    return ExitLikeNvccOn(ReceivedSignal());
  };

  std::optional<std::string> build_args = disk.Read(BuildArgsPath(dir));
  if (!build_args) {
    ComplainIfVerbose(io.environment, "no " + BuildArgsPath(dir) + ": building the TU alone");
    return std::nullopt;
  }
  GenOptions options = ParseGenOptions(SplitShellWords(*build_args), io.environment);
  if (int status = PrepareGraph(options, io); status != 0) return status;
  std::optional<TuRecord> record = ReadTuRecord(disk, dir, object);
  if (!RecordIsOfCall(record, call, cwd)) {
    ComplainIfVerbose(io.environment,
                      "the graph does not build " + object + " with this command: building the TU alone");
    return std::nullopt;
  }

  std::optional<LauncherBuild> last = ParseLauncherBuild(disk.Read(LauncherBuildPath(dir)).value_or(""));
  std::vector<std::string> objects = {object};
  ProcessResult result;
  const bool first_of_build = ninja && (!last || last->outer_build != outer_build);
  if (first_of_build) {
    std::vector<GraphObject> graph_objects = ParseGraphObjects(disk.Read(GraphObjectsPath(dir)).value_or(""));
    objects = ObjectsTheOuterBuildNeeds(*ninja, graph_objects, io);
    if (std::find(objects.begin(), objects.end(), object) == objects.end()) objects.push_back(object);
    std::sort(objects.begin(), objects.end());
    // All of them: the default target, whose priority ladder ranks the steps
    // (its rungs wait for steps of every TU). One TU's failure is its own
    // launcher's to report: the others go on.
    const bool everything = objects.size() >= graph_objects.size();
    if (everything) {
      auto run_for = [&](const std::vector<std::string>& targets) {
        return RunGraph(options, targets, /*keep_going=*/true, lock.fd(), progress, io).exit_code;
      };
      if (int status = RunPassesBeforeBuild(
              dir, options.jobs, run_for, [&] { return RegenerateRanked(options, io); }, io)) {
        return ReceivedSignal() ? end_on_signal() : status;
      }
    }
    result = RunGraph(options, everything ? std::vector<std::string>{} : objects, /*keep_going=*/true,
                      lock.fd(), progress, io);
    if (ReceivedSignal()) return end_on_signal();
    disk.Write(LauncherBuildPath(dir), FormatLauncherBuild({outer_build, result.exit_code == 0, objects}));
    RememberBuild(dir, io);
  }
  // A run for the whole build that failed somewhere may have stopped in the
  // middle of this TU: its own run says.
  if (!first_of_build || (result.exit_code != 0 && objects.size() > 1)) {
    result = RunGraph(options, {object}, /*keep_going=*/false, lock.fd(), progress, io);
  }
  shown.progress.reset();  // its line erased before this call prints
  if (ReceivedSignal()) return end_on_signal();
  if (result.exit_code != 0) {
    disk.Remove(object);  // nvcc leaves no object of a failed compile
    if (int step_failure = ReplayCaptures(record->captures, disk)) return step_failure;
    Complain("ninja failed on " + GlobalManifestPath(dir) + ":\n" + result.stdout_text + result.stderr_text);
    return result.exit_code;
  }
  if (UseGraphResult(call, cwd, disk)) return succeeded(*record);
  ComplainIfVerbose(io.environment,
                    "a file of " + object + " changed while the graph built it: building the TU alone");
  return std::nullopt;
}

}  // namespace fastcuda

// `fastcuda build`: generate when needed, then run Ninja.
#include <filesystem>
#include <optional>
#include <stdexcept>

#include "src/base/directory_lock.h"
#include "src/base/file_system.h"
#include "src/base/machine.h"
#include "src/base/make_flags.h"
#include "src/base/process.h"
#include "src/base/toolchain_environment.h"
#include "src/cli/build_command.h"
#include "src/cli/commands.h"
#include "src/cli/first_phase.h"
#include "src/cli/gen_command.h"
#include "src/cli/gen_options.h"
#include "src/cli/lookup_pass.h"
#include "src/cli/run_ninja.h"
#include "src/graph/kept_intermediates.h"
#include "src/graph/launchers.h"
#include "src/plan/graph_dir.h"
#include "src/plan/source_reads.h"
#include "src/plan/toolchain_programs.h"

namespace fastcuda {

bool HistoryArrived(const std::string& out_dir, const std::string& ninja_log, const FileSystem& fs) {
  std::optional<std::string> size_then = fs.Read(NoHistoryPath(out_dir));
  return size_then && fs.Read(ninja_log).value_or("").size() > std::stoull("0" + *size_then);
}

void RemoveOrphanedIntermediates(const std::string& out_dir, WritableFileSystem& fs,
                                 const std::vector<std::string>& made_elsewhere) {
  std::vector<KeptFiles> kept = ParseKeptFiles(fs.Read(KeptFilesPath(out_dir)).value_or(""));
  for (const std::string& path : OrphanedIntermediates(kept, fs, made_elsewhere)) fs.Remove(path);
}

bool NeedsGeneration(const GenOptions& options, const std::map<std::string, std::string>& environment,
                     const WritableFileSystem& fs, const DryrunRunner& runner) {
  std::optional<std::filesystem::file_time_type> manifest = fs.MTime(GlobalManifestPath(options.out_dir));
  return !manifest || fs.MTime(options.compdb) > manifest ||
         HistoryArrived(options.out_dir, NinjaLogPath(options.out_dir), fs) ||
         fs.Read(GenCommandPath(options.out_dir)) != GenerationKey(options, environment) ||
         !ChangedPrograms(fs.Read(ToolchainProgramsPath(options.out_dir)).value_or(""), runner).empty();
}

int GenerateIfNeeded(const GenOptions& options, const CommandIo& io) {
  return NeedsGeneration(options, io.environment, io.fs, NvccDryrunRunner(io.runner, io.environment))
             ? Generate(options, io)
             : 0;
}

int RegenerateRanked(const GenOptions& options, const CommandIo& io) {
  GenOptions ranked = options;
  ranked.report = false;
  return GenerateIfNeeded(ranked, io);
}

void StartRemoteProxy(const StepLaunchers& launchers, CommandRunner& runner) {
  if (!RunsRemotely(launchers.device)) return;
  ProcessSpec start;
  start.argv = {launchers.device[0], "--remote", launchers.device[2], "--start-proxy"};
  start.capture_output = true;
  try {
    runner.Run(start);
  } catch (const std::exception&) {  // the steps start it themselves, or fall back
  }
}

int PrepareGraph(const GenOptions& options, const CommandIo& io) {
  StartRemoteProxy(options.launchers, io.runner);
  if (int status = GenerateIfNeeded(options, io); status != 0) return status;
  RemoveOrphanedIntermediates(options.out_dir, io.fs);
  RereadChangedSources(options.out_dir, options.out_dir, io.fs);
  return 0;
}

int BuildMain(const std::vector<std::string>& args, const CommandIo& io) {
  GenOptions options = ParseGenOptions(args, io.environment);
  if (options.compdb.empty()) throw std::invalid_argument("build needs --compdb FILE --out DIR");
  DirectoryLock lock(options.out_dir, kGraphLockName, [&] {
    Complain("another fastcuda build is running in " + options.out_dir + "; waiting for it to finish");
  });
  if (int status = PrepareGraph(options, io); status != 0) return status;
  NinjaRun ninja;
  ninja.dir = options.out_dir;
  ninja.jobs = GraphNinjaJobs(options, VersionedLaunchers(options.launchers, VersionProbeOf(io.runner)),
                              io.environment, MachineLimitsHere(io.fs).cpus);
  ninja.lock_fd = lock.fd();
  // Where make runs other recipes beside this one (the module's
  // fastcuda_graph under `make -jN`), their lines would be written after a
  // status line that Ninja redraws in place: it prints a line per step.
  const std::string makeflags = EnvironmentValue(io.environment, "MAKEFLAGS");
  ninja.plain_status = MakeRunsRecipesAtOnce(makeflags);
  ninja.object_lines = options.object_lines;
  auto run_for = [&](const std::vector<std::string>& targets) {
    NinjaRun phase = ninja;
    phase.targets = targets;
    // One TU's failure is the build's to report: the others' lookups and phase go on.
    phase.keep_going = true;
    return RunNinja(phase, io).exit_code;
  };
  if (int status = RunPassesBeforeBuild(
          options.out_dir, options.jobs, run_for, [&] { return RegenerateRanked(options, io); }, io);
      status != 0) {
    return status;
  }
  // Under `make -k` the objects' own rules come after the graph (the
  // module's Makefiles: launcher records) and report a TU whose steps
  // failed, compiling it themselves as nvcc would (its record's landmarks
  // say that the graph did not make its object): the graph builds every
  // other TU and lets make go on to them.
  const bool left_to_objects = options.launcher_records && MakeKeepsGoing(makeflags);
  ninja.keep_going = left_to_objects;
  const int status = RunNinja(ninja, io).exit_code;
  RememberBuild(options.out_dir, io);
  if (status != 0 && left_to_objects && !ReceivedSignal()) {
    Complain("some CUDA sub-steps failed; under make -k the rules of their objects report them");
    return 0;
  }
  return status;
}

}  // namespace fastcuda

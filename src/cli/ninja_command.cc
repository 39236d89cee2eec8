#include "src/cli/ninja_command.h"

#include <algorithm>
#include <filesystem>
#include <map>
#include <optional>
#include <set>

#include "src/base/directory_lock.h"
#include "src/base/file_system.h"
#include "src/base/ninja_command_line.h"
#include "src/base/ninja_jobs.h"
#include "src/base/process.h"
#include "src/base/toolchain_environment.h"
#include "src/cli/build_command.h"
#include "src/cli/commands.h"
#include "src/cli/first_phase.h"
#include "src/cli/lookup_pass.h"
#include "src/cli/ninja_rewrite.h"
#include "src/cli/noop_check.h"
#include "src/cli/run_ninja.h"
#include "src/plan/graph_dir.h"
#include "src/plan/log_handover.h"
#include "src/plan/source_reads.h"

namespace fastcuda {
namespace {

/// Set for the Ninja that a `fastcuda ninja` runs while it holds the lock of
/// its directory: the regeneration edge, which calls back into `fastcuda
/// ninja`, must not wait for the lock its own build holds.
constexpr const char* kLockHeldVariable = "FASTCUDA_NINJA_LOCKED";

/// The objects (absolute) that plain ninja made last (ObjectsMadeElsewhere):
/// their steps make them again from the sources.
std::vector<std::string> ObjectsPlainNinjaMade(const NinjaArguments& arguments, const std::string& out_dir,
                                               const std::vector<SharedObject>& shared,
                                               const FileSystem& fs) {
  std::vector<std::string> objects;
  for (const std::string& output : ObjectsMadeElsewhere(out_dir, GraphNinjaLogPath(out_dir, fs), shared, fs))
    objects.push_back(ResolvePath(arguments.dir, output));
  return objects;
}

/// What Ninja's arguments `args` (without Ninja itself) ask for.
NinjaCommandLine CommandLineOf(const std::vector<std::string>& args) {
  std::vector<std::string> argv = {"ninja"};
  argv.insert(argv.end(), args.begin(), args.end());
  return ParseNinjaCommandLine(argv);
}

/// The targets that Ninja's arguments `args` ask it to build; empty: the defaults.
std::vector<std::string> TargetsOf(const std::vector<std::string>& args) {
  return CommandLineOf(args).targets;
}

/// -n: Ninja only says what it would run.
bool DryRun(const NinjaArguments& arguments) {
  return std::find(arguments.passed_on.begin(), arguments.passed_on.end(), "-n") != arguments.passed_on.end();
}

/// True when Ninja is to build the manifest's defaults, for real (no -n).
bool BuildsDefaults(const NinjaArguments& arguments) {
  return TargetsOf(arguments.passed_on).empty() && !DryRun(arguments);
}

/// The shared objects that a build which ran to success left as their steps
/// make them now: every object its targets need (Ninja ran every step of
/// them; a `SOURCE^` is its object by now, ObjectsForCarets). None for a dry
/// run, or where Ninja cannot say what the targets need.
CurrentObjects BuiltObjects(const NinjaArguments& arguments, const CommandIo& io) {
  auto none = [](const SharedObject&) { return false; };
  if (DryRun(arguments)) return none;
  const std::vector<std::string> targets = TargetsOf(arguments.passed_on);
  if (targets.empty()) return [](const SharedObject& object) { return object.by_default; };
  std::string error;
  std::optional<TargetNeeds> needs = AskTargetNeeds(NinjaProgram(io.environment), arguments.dir,
                                                    InRewriteDir("build.ninja"), targets, io.runner, error);
  if (!needs) {
    ComplainIfVerbose(io.environment,
                      "plain ninja will rebuild the objects of " + targets.front() + ": " + error);
    return none;
  }
  return [paths = std::move(needs->paths), dir = arguments.dir](const SharedObject& object) {
    return paths.contains(ResolvePath(dir, object.output));
  };
}

}  // namespace

std::vector<std::string> ObjectsForCarets(std::vector<std::string> args,
                                          const std::vector<SharedObject>& objects, const std::string& dir) {
  std::set<std::string> carets;
  for (const std::string& target : TargetsOf(args)) {
    if (target.ends_with('^')) carets.insert(target);
  }
  auto canonical = [&](const std::string& path) {  // as Ninja reads a target: /b/../s/a.cu is /s/a.cu
    return std::filesystem::path(ResolvePath(dir, path)).lexically_normal();
  };
  for (std::string& arg : args) {
    if (!carets.contains(arg)) continue;
    const std::filesystem::path source = canonical(arg.substr(0, arg.size() - 1));
    // The first, as Ninja takes the first edge in the manifest's order.
    auto object = std::find_if(objects.begin(), objects.end(), [&](const SharedObject& shared) {
      return !shared.source.empty() && canonical(shared.source) == source;
    });
    if (object != objects.end()) arg = object->output;
  }
  return args;
}

int NinjaMain(const std::vector<std::string>& args, const CommandIo& io) {
  // Ninja stops on Ctrl-C, kill -INT or a hangup even where its parent
  // ignored them (a script's background job); so must what stands in for it.
  TakeSignalsAsNinjaDoes();
  ProcessSpec ninja;
  ninja.argv = {NinjaProgram(io.environment)};
  ninja.own_process_group = true;
  // What reads no manifest goes to Ninja as it is (cpp_extension asks
  // `ninja --version` before it writes one).
  if (std::any_of(args.begin(), args.end(), [](const std::string& arg) {
        return arg == "--version" || arg == "-h" || arg == "--help";
      })) {
    ninja.argv.insert(ninja.argv.end(), args.begin(), args.end());
    return io.runner.Run(ninja).exit_code;
  }
  NinjaArguments arguments = ParseNinjaArguments(args);
  const std::string out_dir = PartOptions(arguments, io.environment).out_dir;
  WritableFileSystem& disk = io.fs;
  // A tool (`-t`) reads the manifest as it is: Meson's regeneration, inside
  // the build, runs `ninja -t cleandead`, which must see the steps' outputs
  // (Ninja would remove every file in its log that no edge names).
  const bool tool = std::find(args.begin(), args.end(), "-t") != args.end();
  // One build at a time in a directory, from the rewrite to Ninja's last
  // step: two would share the steps' intermediates and temporary
  // directories (an IDE's background build beside a terminal's). The
  // second waits, saying so. Ninja inherits the lock, and tells the
  // regeneration edge that its build holds it.
  std::optional<DirectoryLock> lock;
  const bool out_dir_existed = std::filesystem::is_directory(out_dir);
  auto lock_directory = [&] {
    if (lock || EnvironmentValue(io.environment, kLockHeldVariable) == out_dir) return;
    lock.emplace(out_dir, kGraphLockName, [&] {
      Complain("another fastcuda ninja is running in " + arguments.dir + "; waiting for it to finish");
    });
    ninja.inherited_fd = lock->fd();
    ninja.env_set[kLockHeldVariable] = out_dir;
  };
  if (!tool) lock_directory();
  if (arguments.rewrite_only ||
      ((!tool || !disk.IsFile(GlobalManifestPath(out_dir))) && RewriteNeeded(arguments, io))) {
    lock_directory();
    if (int status = RewriteManifest(arguments, io, /*report=*/true); status != 0 || arguments.rewrite_only) {
      // A manifest Ninja would refuse leaves nothing written: not even the
      // directory that the lock made.
      if (status != 0 && !out_dir_existed) {
        lock.reset();
        std::error_code ignored;
        std::filesystem::remove_all(out_dir, ignored);
      }
      return status;
    }
  } else if (!tool) {
    if (std::optional<int> status = PlainNinjaFindsNothingToDo(arguments, out_dir, ninja, io)) return *status;
  }
  // The shared objects of the rewrite (none read for a tool, which leaves Ninja's log alone).
  std::vector<SharedObject> objects = tool ? std::vector<SharedObject>{} : LoadSharedObjects(out_dir, disk);
  if (!tool) {
    RemoveOrphanedIntermediates(out_dir, disk, ObjectsPlainNinjaMade(arguments, out_dir, objects, disk));
    RereadChangedSources(out_dir, arguments.dir, disk);
    arguments.passed_on = ObjectsForCarets(arguments.passed_on, objects, arguments.dir);
  }
  // Meson runs the Ninja that NINJA names for its tools (SelfAsNinjaPath:
  // its `ninja -t cleandead` must read the rewritten manifest).
  ninja.env_set["NINJA"] = SelfAsNinjaPath(out_dir);
  ninja.argv.insert(ninja.argv.end(), {"-C", arguments.dir, "-f", InRewriteDir("build.ninja")});
  if (!tool && !CommandLineOf(arguments.passed_on).jobs_given) {
    // Ninja's own default counts the cores, not a container's CPU quota.
    for (const std::string& argument : DefaultNinjaJobArgumentsHere(io)) ninja.argv.push_back(argument);
  }
  ninja.argv.insert(ninja.argv.end(), arguments.passed_on.begin(), arguments.passed_on.end());
  if (tool) return io.runner.Run(ninja).exit_code;
  if (BuildsDefaults(arguments)) {
    auto run_for = [&](const std::vector<std::string>& targets) {
      ProcessSpec phase = ninja;
      phase.argv.insert(phase.argv.end(), {"-k", "0"});  // the others' lookups and phase go on
      phase.argv.push_back("--");
      phase.argv.insert(phase.argv.end(), targets.begin(), targets.end());
      return io.runner.Run(phase).exit_code;
    };
    auto rewrite = [&] {
      if (!RewriteNeeded(arguments, io)) return 0;
      const int status = RewriteManifest(arguments, io, /*report=*/false);
      objects = LoadSharedObjects(out_dir, disk);
      return status;
    };
    if (int status = RunPassesBeforeBuild(out_dir, 0, run_for, rewrite, io); status != 0) return status;
  }
  StopIfInterrupted();  // stopped while it generated: no build
  // Plain ninja, run in between, must find fastcuda ninja's objects up to date.
  const std::string log = GraphNinjaLogPath(out_dir, disk);
  // The step history reads only what the steps wrote: the first phase's
  // records, then the build's, not the records handed over and taken back.
  RememberBuild(out_dir, io);
  const TakenBack taken_back = TakeBackLog(out_dir, log, objects, disk);
  SkipRecordsOfNoBuild(out_dir, io);
  const int64_t build_start = BuildStart(out_dir, disk);
  int status = io.runner.Run(ninja).exit_code;
  // A build that ran no step has no step times to remember (the steps
  // file, read for them, is the biggest a no-op build would read), and
  // leaves the log as it found it.
  if (status != 0 || !PutBackLog(out_dir, arguments.dir, log, objects, taken_back, disk)) {
    RememberBuild(out_dir, io);
    // A failed or stopped build may leave an object half written with no record
    // of its step (a compiler killed): none is handed over, not even as it was.
    if (status == 0) {
      HandOverLog(out_dir, log, BuiltObjects(arguments, io), build_start, taken_back.handovers, disk);
      // The next no-op check reads the files the steps read from the index, not the logs.
      if (disk.IsFile(NoopCheckPath(out_dir))) IndexReadFiles(out_dir, arguments.dir, disk);
    }
  }
  SkipRecordsOfNoBuild(out_dir, io);
  return status;
}

}  // namespace fastcuda

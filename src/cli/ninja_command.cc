#include "src/cli/ninja_command.h"

#include <algorithm>
#include <filesystem>
#include <iostream>
#include <map>
#include <optional>
#include <set>
#include <unordered_set>

#include "ninja-gen/manifest_parser.h"
#include "ninja-gen/manifest_rewrite.h"
#include "ninja-gen/ninja_writer.h"
#include "src/base/directory_lock.h"
#include "src/base/dryrun_runner.h"
#include "src/base/file_system.h"
#include "src/base/ninja_command_line.h"
#include "src/base/ninja_jobs.h"
#include "src/base/process.h"
#include "src/base/shell_words.h"
#include "src/base/toolchain_environment.h"
#include "src/cli/build_command.h"
#include "src/cli/commands.h"
#include "src/cli/first_phase.h"
#include "src/cli/gen_command.h"
#include "src/cli/lookup_pass.h"
#include "src/cli/run_ninja.h"
#include "src/graph/kept_intermediates.h"
#include "src/graph/whole_call_cache.h"
#include "src/nvcc/nvcc_options.h"
#include "src/nvcc/step.h"
#include "src/plan/graph_dir.h"
#include "src/plan/log_handover.h"
#include "src/plan/source_reads.h"
#include "src/plan/toolchain_programs.h"

namespace fastcuda {
namespace {

/// Where FastCuda keeps its files, as Ninja (running in the manifest's
/// directory) names it.
constexpr const char* kOwnDir = ".fastcuda";
/// The option with which the manifest's regeneration edge calls back.
constexpr const char* kRewriteFlag = "--fastcuda-rewrite";
/// Set for the Ninja that a `fastcuda ninja` runs while it holds the lock of
/// its directory: the regeneration edge, which calls back into `fastcuda
/// ninja`, must not wait for the lock its own build holds.
constexpr const char* kLockHeldVariable = "FASTCUDA_NINJA_LOCKED";

/// The command line of `fastcuda ninja`: what it reads, and what goes to Ninja.
struct NinjaArguments {
  std::string dir;                       ///< -C, absolute
  std::string manifest = "build.ninja";  ///< -f, as Ninja would open it from `dir`
  bool rewrite_only = false;             ///< kRewriteFlag: write the manifest, run nothing
  std::vector<std::string> passed_on;    ///< every other argument, for Ninja
};

/// Reads -C and -f as Ninja does, up to a tool (`-t`) or `--`.
NinjaArguments ParseNinjaArguments(const std::vector<std::string>& args) {
  NinjaArguments parsed;
  std::string dir;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    auto value = [&] {
      if (i + 1 >= args.size()) throw std::invalid_argument(arg + " needs a value");
      return args[++i];
    };
    if (arg == "-t" || arg == "--") {  // a tool's or the targets' words follow, all Ninja's
      parsed.passed_on.insert(parsed.passed_on.end(), args.begin() + i, args.end());
      break;
    }
    if (arg == "-C") dir = value();
    else if (arg.starts_with("-C")) dir = arg.substr(2);
    else if (arg == "-f") parsed.manifest = value();
    else if (arg.starts_with("-f")) parsed.manifest = arg.substr(2);
    else if (arg == kRewriteFlag) parsed.rewrite_only = true;
    else parsed.passed_on.push_back(arg);
  }
  parsed.dir = std::filesystem::absolute(dir.empty() ? "." : dir).lexically_normal().string();
  if (parsed.dir.size() > 1 && parsed.dir.back() == '/') parsed.dir.pop_back();
  return parsed;
}

/// A file system whose relative paths start in `dir`, where Ninja runs.
class DirectoryFileSystem : public FileSystem {
 public:
  DirectoryFileSystem(const FileSystem& inner, std::string dir) : inner_(inner), dir_(std::move(dir)) {}
  bool IsFile(const std::string& path) const override { return inner_.IsFile(ResolvePath(dir_, path)); }
  std::optional<std::string> Read(const std::string& path) const override {
    return inner_.Read(ResolvePath(dir_, path));
  }

 private:
  const FileSystem& inner_;
  std::string dir_;
};

/// A file of kOwnDir, as Ninja names it.
std::string OwnPath(const std::string& name) { return std::string(kOwnDir) + "/" + name; }
/// What the rewrite in `out_dir` was made with (RewriteKey).
std::string KeyPath(const std::string& out_dir) { return out_dir + "/ninja-key"; }

/// Ninja's log of the manifest: in its `builddir`, else where it runs.
std::string NinjaLogOf(const Manifest& manifest, const std::string& dir) {
  std::string builddir = LookupScopeVariable(manifest, 0, "builddir");
  return NinjaLogPath(builddir.empty() ? dir : ResolvePath(dir, builddir));
}

/// What the top file's copy gets at its end: the steps, the `defaults`
/// (where FastCuda names them), and the edge through which Ninja rewrites
/// the copy whenever a file it came from changes.
std::string AppendedText(const Manifest& manifest, const NinjaArguments& arguments,
                         const std::vector<std::string>& inputs, bool has_steps,
                         const std::vector<std::string>& defaults) {
  std::string text =
      "# fastcuda ninja: the steps of the nvcc edges cut out above, and this file's regeneration\n";
  if (has_steps) text += "subninja " + EscapeNinjaPath(OwnPath("steps.ninja")) + "\n";
  NinjaWriter regeneration;
  if (!defaults.empty()) regeneration.Default(defaults);
  regeneration.Rule(
      {"FASTCUDA_REWRITE_MANIFEST",
       {{"command", EscapeNinjaValue(JoinShellWords({SelfExecutable(), "ninja", kRewriteFlag, "-C",
                                                     arguments.dir, "-f", arguments.manifest}))},
        {"description", "Rewriting " + arguments.manifest + " for fastcuda ninja"},
        {"generator", "1"}}});
  NinjaBuild build;
  build.outputs = {OwnPath("build.ninja")};
  build.rule = "FASTCUDA_REWRITE_MANIFEST";
  for (const ManifestFile& file : manifest.files) build.implicit_inputs.push_back(file.path);
  build.implicit_inputs.insert(build.implicit_inputs.end(), inputs.begin(), inputs.end());
  regeneration.Build(build);
  return text + regeneration.text();
}

/// fastcuda linked as `ninja` in `out_dir`: what the generator's tools run
/// (Meson's `ninja -t cleandead` must read the rewritten manifest).
std::string SelfAsNinja(const std::string& out_dir) { return out_dir + "/bin/ninja"; }

/// Links SelfAsNinja to this executable, anew if it names another.
void LinkSelfAsNinja(const std::string& out_dir) {
  std::error_code error;
  const std::filesystem::path link = SelfAsNinja(out_dir);
  if (std::filesystem::read_symlink(link, error) == SelfExecutable()) return;
  std::filesystem::create_directories(link.parent_path());
  std::filesystem::remove(link, error);
  std::filesystem::create_symlink(SelfExecutable(), link);
}

/// What decides the rewrite besides the manifest's files: the arguments that
/// shape it and the toolchain environment.
std::string RewriteKey(const NinjaArguments& arguments, const GenOptions& options,
                       const std::map<std::string, std::string>& environment) {
  return JoinShellWords({arguments.manifest, SelfExecutable()}) + "\n" + GenerationKey(options, environment);
}

/// The generation options of the steps: the defaults, in kOwnDir.
GenOptions PartOptions(const NinjaArguments& arguments,
                       const std::map<std::string, std::string>& environment) {
  GenOptions options = DefaultGenOptions(environment);
  options.out_dir = arguments.dir + "/" + kOwnDir;
  return options;
}

/// The first outputs of `edges` (indices into `manifest`'s) that what Ninja
/// builds by default does not need.
std::set<std::string> NotByDefault(const Manifest& manifest, const std::set<size_t>& edges) {
  std::vector<std::string> targets;
  for (const ManifestDefault& statement : manifest.defaults) {
    targets.insert(targets.end(), statement.targets.begin(), statement.targets.end());
  }
  if (manifest.defaults.empty()) targets = RootTargets(manifest);
  std::unordered_set<std::string> needed = Needed(manifest, targets);
  std::set<std::string> not_needed;
  for (size_t i : edges) {
    if (!needed.contains(manifest.edges[i].outputs.front()))
      not_needed.insert(manifest.edges[i].outputs.front());
  }
  return not_needed;
}

/// The objects that both the cut edges of `manifest` (plain ninja) and the
/// steps just written in `steps_manifest` (fastcuda ninja) write.
std::vector<SharedObject> SharedObjectsOf(const Manifest& manifest, const std::set<size_t>& cut_edges,
                                          const std::set<std::string>& not_by_default,
                                          const NinjaArguments& arguments, const FileSystem& fs) {
  std::vector<SharedObject> objects;
  if (cut_edges.empty()) return objects;
  std::map<std::string, size_t> first_reader;  // Ninja's `SOURCE^`: the first edge that reads SOURCE
  for (size_t i = 0; i < manifest.edges.size(); ++i) {
    const ManifestEdge& edge = manifest.edges[i];
    for (const auto* paths : {&edge.inputs, &edge.implicit_inputs, &edge.order_only_inputs}) {
      for (const std::string& path : *paths) first_reader.emplace(path, i);
    }
  }
  Manifest steps = ReadManifest(DirectoryFileSystem(fs, arguments.dir), OwnPath("steps.ninja"));
  std::map<std::string, size_t> edge_of_output;
  for (size_t i = 0; i < steps.edges.size(); ++i) {
    for (const std::string& output : steps.edges[i].outputs) edge_of_output[output] = i;
  }
  for (size_t cut : cut_edges) {
    const ManifestEdge& edge = manifest.edges[cut];
    auto step = edge_of_output.find(edge.outputs.front());
    if (step == edge_of_output.end()) continue;
    objects.push_back(HashSharedObject(edge.outputs.front(), EvaluateEdgeVariable(manifest, edge, "command"),
                                       EvaluateEdgeVariable(steps, steps.edges[step->second], "command")));
    objects.back().by_default = !not_by_default.contains(edge.outputs.front());
    if (first_reader.at(edge.inputs.front()) == cut) objects.back().source = edge.inputs.front();
  }
  return objects;
}

/// Reads the manifest and writes its rewritten copy and the steps (the
/// caller holds the directory's lock). Returns 2, writing nothing, for a
/// manifest Ninja would refuse.
int Rewrite(const NinjaArguments& arguments, const CommandIo& io) {
  WritableFileSystem& disk = io.fs;
  Manifest manifest;
  try {
    manifest = ReadManifest(DirectoryFileSystem(disk, arguments.dir), arguments.manifest);
  } catch (const ManifestError& error) {
    Complain(error.what());
    return 2;
  }
  CompileDatabase database;
  ManifestCut cut;
  for (size_t i = 0; i < manifest.edges.size(); ++i) {
    NvccEdge nvcc = NvccEdgeOf(manifest, manifest.edges[i], arguments.dir);
    if (nvcc.entry) {
      database.entries.push_back(std::move(*nvcc.entry));
      cut.edges.insert(i);
    } else if (!nvcc.why_kept.empty()) {
      ComplainIfVerbose(io.environment,
                        "nvcc runs whole for " + manifest.edges[i].outputs.front() + ": " + nvcc.why_kept);
    }
  }
  // Without `default` statements Ninja builds every file that no edge
  // reads, which would be a cached TU's intermediates too (the edges that
  // read them name them in dyndep files only): the copy names the files
  // the generator's manifest meant, and the steps add the ladder's rungs.
  std::vector<std::string> defaults;
  if (manifest.defaults.empty() &&
      std::any_of(database.entries.begin(), database.entries.end(),
                  [](const CompileEntry& entry) { return IsWholeCallCache(entry.launcher); })) {
    defaults = RootTargets(manifest);
  }
  const std::set<std::string> not_by_default = NotByDefault(manifest, cut.edges);
  GenOptions options = PartOptions(arguments, io.environment);
  Generation generation;
  if (!database.entries.empty()) {
    ManifestPart part{arguments.dir, NinjaLogOf(manifest, arguments.dir),
                      !manifest.defaults.empty() || !defaults.empty(), not_by_default,
                      NinjaMinorVersion(io.runner, NinjaProgram(io.environment)) >= 13};
    generation = GenerateForEntries(std::move(database), options, LoadGenerationContext(options, io),
                                    NvccDryrunRunner(io.runner, io.environment), disk, part);
    std::cerr << generation.report;
  }
  cut.top = OwnPath("build.ninja");
  // A `default` naming an nvcc edge's output would precede the steps that
  // define it: it moves after them.
  std::unordered_set<std::string> cut_outputs;
  for (size_t i : cut.edges) {
    for (const auto* paths : {&manifest.edges[i].outputs, &manifest.edges[i].implicit_outputs}) {
      cut_outputs.insert(paths->begin(), paths->end());
    }
  }
  for (size_t i = 0; i < manifest.defaults.size(); ++i) {
    const std::vector<std::string>& targets = manifest.defaults[i].targets;
    if (std::none_of(targets.begin(), targets.end(),
                     [&](const std::string& t) { return cut_outputs.contains(t); })) {
      continue;
    }
    cut.defaults.insert(i);
    defaults.insert(defaults.end(), targets.begin(), targets.end());
  }
  // No lookup pass after a rewrite that has no nvcc edge left.
  if (cut.edges.empty()) generation.files[LookupPassPath(options.out_dir)] = "";
  cut.copies_dir = OwnPath("manifest");
  cut.appended = AppendedText(manifest, arguments, generation.inputs, !cut.edges.empty(), defaults);
  WriteGeneration(generation, options.out_dir, disk);
  for (const auto& [path, text] : CutManifest(manifest, cut)) {
    // The top copy is always written: Ninja, having rerun the edge that
    // writes it, must find it newer than what it was made from.
    if (path == cut.top) disk.Write(ResolvePath(arguments.dir, path), text);
    else WriteIfChanged(disk, ResolvePath(arguments.dir, path), text);
  }
  SaveSharedObjects(SharedObjectsOf(manifest, cut.edges, not_by_default, arguments, disk), options.out_dir,
                    disk);
  LinkSelfAsNinja(options.out_dir);
  disk.Write(KeyPath(options.out_dir), RewriteKey(arguments, options, io.environment));
  disk.Write(NinjaLogSourcePath(options.out_dir), NinjaLogOf(manifest, arguments.dir));
  return 0;
}

/// True when the rewrite is missing, was made with other arguments or
/// toolchain, or lacks step times that Ninja's log now has. A changed file of
/// the manifest is Ninja's to find, through the rewrite's own edge.
bool RewriteNeeded(const NinjaArguments& arguments, const CommandIo& io) {
  GenOptions options = PartOptions(arguments, io.environment);
  const FileSystem& disk = io.fs;
  return !disk.IsFile(options.out_dir + "/build.ninja") ||
         disk.Read(KeyPath(options.out_dir)) != RewriteKey(arguments, options, io.environment) ||
         !ChangedPrograms(disk.Read(ToolchainProgramsPath(options.out_dir)).value_or(""),
                          NvccDryrunRunner(io.runner, io.environment))
              .empty() ||
         HistoryArrived(options.out_dir, GraphNinjaLogPath(options.out_dir, disk), disk);
}

/// The objects (absolute) that plain ninja made last (ObjectsMadeElsewhere):
/// their steps make them again from the sources.
std::vector<std::string> ObjectsPlainNinjaMade(const NinjaArguments& arguments, const std::string& out_dir,
                                               const FileSystem& fs) {
  std::vector<std::string> objects;
  for (const std::string& output : ObjectsMadeElsewhere(out_dir, GraphNinjaLogPath(out_dir, fs), fs))
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
                                                    OwnPath("build.ninja"), targets, io.runner, error);
  if (!needs) {
    ComplainIfVerbose(io.environment,
                      "plain ninja will rebuild the objects of " + targets.front() + ": " + error);
    return none;
  }
  return [paths = std::move(needs->paths), dir = arguments.dir](const SharedObject& object) {
    return paths.contains(ResolvePath(dir, object.output));
  };
}

/// Takes fastcuda itself out of a launcher prefix
/// (CMAKE_CUDA_COMPILER_LAUNCHER=fastcuda): the steps are what it would run.
void DropFastcudaLauncher(std::vector<std::string>& launcher) {
  std::erase_if(launcher,
                [](const std::string& word) { return std::filesystem::path(word).filename() == "fastcuda"; });
}

}  // namespace

NvccEdge NvccEdgeOf(const Manifest& manifest, const ManifestEdge& edge, const std::string& dir) {
  if (edge.rule == kPhonyRule) return {std::nullopt, ""};
  std::string command = EvaluateEdgeVariable(manifest, edge, "command");
  std::vector<std::string> words;
  try {
    words = SplitShellWords(command);
  } catch (const ShellSyntaxError&) {
    return {std::nullopt, ""};
  }
  std::optional<CompileEntry> entry = NvccEntryOf(words);
  if (!entry) return {std::nullopt, ""};
  auto kept = [](std::string why) { return NvccEdge{std::nullopt, std::move(why)}; };
  if (!EvaluateEdgeVariable(manifest, edge, "rspfile").empty()) return kept("the edge has a response file");
  std::vector<std::string> args(entry->nvcc.begin() + 1, entry->nvcc.end());
  if (std::optional<std::string> why = ScanNvccArgs(args).fallback_reason) return kept(*why);
  // A device link reads objects: nvcc run whole would name no headers it
  // read, and its edge would run in every build.
  if (HasFlag(entry->nvcc, "-dlink") || HasFlag(entry->nvcc, "--device-link"))
    return kept("a device link compiles no source");
  if (HasShellSyntax(command)) return kept("its command has shell syntax besides words");
  if (edge.outputs.size() != 1 || !edge.implicit_outputs.empty() || !edge.validations.empty()) {
    return kept("the edge has outputs besides one object");
  }
  if (edge.inputs.size() != 1) return kept("the edge has no single source");
  std::string deps = EvaluateEdgeVariable(manifest, edge, "deps");
  if (!deps.empty() && deps != "gcc") return kept("deps = " + deps);
  DropFastcudaLauncher(entry->launcher);
  entry->directory = dir;
  entry->file = edge.inputs.front();
  entry->output = edge.outputs.front();
  entry->implicit_inputs = edge.implicit_inputs;
  entry->order_only_inputs = edge.order_only_inputs;
  entry->ninja_command = command;
  entry->ninja_reads_depfile =
      deps == "gcc" && !EvaluateEdgeVariable(manifest, edge, "depfile", EdgePathQuoting::kVerbatim).empty();
  return {std::move(entry), ""};
}

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
      ((!tool || !disk.IsFile(out_dir + "/build.ninja")) && RewriteNeeded(arguments, io))) {
    lock_directory();
    if (int status = Rewrite(arguments, io); status != 0 || arguments.rewrite_only) {
      // A manifest Ninja would refuse leaves nothing written: not even the
      // directory that the lock made.
      if (status != 0 && !out_dir_existed) {
        lock.reset();
        std::error_code ignored;
        std::filesystem::remove_all(out_dir, ignored);
      }
      return status;
    }
  }
  if (!tool) {
    RemoveOrphanedIntermediates(out_dir, disk, ObjectsPlainNinjaMade(arguments, out_dir, disk));
    RereadChangedSources(out_dir, arguments.dir, disk);
    arguments.passed_on =
        ObjectsForCarets(arguments.passed_on, LoadSharedObjects(out_dir, disk), arguments.dir);
  }
  // Meson runs the Ninja that NINJA names for its tools.
  ninja.env_set["NINJA"] = SelfAsNinja(out_dir);
  ninja.argv.insert(ninja.argv.end(), {"-C", arguments.dir, "-f", OwnPath("build.ninja")});
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
    auto rewrite = [&] { return RewriteNeeded(arguments, io) ? Rewrite(arguments, io) : 0; };
    if (int status = RunPassesBeforeBuild(out_dir, 0, run_for, rewrite, io); status != 0) return status;
  }
  StopIfInterrupted();  // stopped while it generated: no build
  // Plain ninja, run in between, must find fastcuda ninja's objects up to date.
  const std::string log = GraphNinjaLogPath(out_dir, disk);
  // The step history reads only what the steps wrote: the first phase's
  // records, then the build's, not the records handed over and taken back.
  RememberBuild(out_dir, io);
  std::vector<Handover> taken_back = TakeBackLog(out_dir, log, disk);
  SkipRecordsOfNoBuild(out_dir, io);
  const int64_t build_start = BuildStart(out_dir, disk);
  int status = io.runner.Run(ninja).exit_code;
  RememberBuild(out_dir, io);
  // A failed or stopped build may leave an object half written with no record
  // of its step (a compiler killed): none is handed over, not even as it was.
  if (status == 0) HandOverLog(out_dir, log, BuiltObjects(arguments, io), build_start, taken_back, disk);
  SkipRecordsOfNoBuild(out_dir, io);
  return status;
}

}  // namespace fastcuda

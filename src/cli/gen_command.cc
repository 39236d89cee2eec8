// `fastcuda gen`: Ninja manifests for one nvcc call or a whole compile
// database, and `fastcuda build`: generate when needed, then run Ninja.
#include <filesystem>
#include <iostream>
#include <nlohmann/json.hpp>
#include <thread>
#include <utility>

#include "ninja-gen/global_manifest.h"
#include "src/cli/commands.h"
#include "src/base/directory_lock.h"
#include "src/base/file_system.h"
#include "src/base/machine.h"
#include "src/plan/global_graph.h"
#include "src/base/json_bytes.h"
#include "src/graph/kept_intermediates.h"
#include "src/graph/launchers.h"
#include "src/base/ninja_jobs.h"
#include "src/cli/call_manifest.h"
#include "src/plan/graph_dir.h"
#include "src/plan/nvcc_call.h"
#include "src/base/process.h"
#include "src/base/shell_words.h"
#include "src/base/toolchain_environment.h"
#include "src/plan/tu_record.h"

namespace fastcuda {
namespace {

constexpr const char* kGenUsage =
    "usage: fastcuda gen --out DIR [--pools KIND=N,...] -- NVCC ARGS...\n"
    "       fastcuda gen --compdb FILE --out DIR [--pools KIND=N,...] [-j N]\n"
    "                    [--only TEXT]... [--exclude TEXT]... [--launcher-records]\n"
    "                    [--launcher-for TEXT LAUNCHER]...\n"
    "  both: [--host-launcher LAUNCHER] [--device-launcher LAUNCHER]\n"
    "        [--module-id nvcc|own] [--split-compile off|auto|N] [--early-host on|off]\n"
    "        [--priority-ladder on|off|auto]\n"
    "        (default: $FASTCUDA_HOST_LAUNCHER, $FASTCUDA_DEVICE_LAUNCHER, $FASTCUDA_MODULE_ID,\n"
    "         $FASTCUDA_SPLIT_COMPILE, $FASTCUDA_EARLY_HOST, $FASTCUDA_PRIORITY_LADDER)";

/// The options of `gen` and `build`.
struct GenOptions {
  std::string out_dir;   ///< absolute
  std::string compdb;    ///< absolute; empty for a single call
  std::string pools;
  unsigned jobs = 0;     ///< 0: the core count
  std::vector<std::string> only;      ///< keep only entries whose output path contains one
  std::vector<std::string> excludes;  ///< leave out entries whose output path contains one
  bool launcher_records = false;      ///< write what `fastcuda --graph` reads
  StepLaunchers launchers = LaunchersFrom(CurrentEnvironment());  ///< host and device launchers
  /// (TEXT, LAUNCHER): entries whose output path contains TEXT and whose
  /// command has no launcher run as if LAUNCHER (shell words) came first
  std::vector<std::pair<std::string, std::string>> launchers_for;
  /// Mode texts as given (parsed by CompileModesOf), written back by GenCommandLine.
  std::string module_id = EnvironmentVariable("FASTCUDA_MODULE_ID");
  std::string split_compile = EnvironmentVariable("FASTCUDA_SPLIT_COMPILE");
  std::string early_host = EnvironmentVariable("FASTCUDA_EARLY_HOST");
  std::string priority_ladder = EnvironmentVariable("FASTCUDA_PRIORITY_LADDER", "auto");
  std::vector<std::string> nvcc_call;  ///< after `--`
};

CompileModes CompileModesOf(const GenOptions& options) {
  return {ParseModuleIdMode(options.module_id), ParseSplitCompile(options.split_compile),
          ParseEarlyHost(options.early_host)};
}

GenOptions ParseGenOptions(const std::vector<std::string>& args) {
  GenOptions options;
  size_t i = 0;
  auto value = [&]() -> const std::string& {
    if (i + 1 >= args.size()) throw std::invalid_argument(std::string(kGenUsage));
    return args[++i];
  };
  for (; i < args.size(); ++i) {
    const std::string& flag = args[i];
    if (flag == "--") {
      options.nvcc_call.assign(args.begin() + i + 1, args.end());
      break;
    }
    if (flag == "--out") options.out_dir = value();
    else if (flag == "--compdb") options.compdb = value();
    else if (flag == "--pools") options.pools = value();
    else if (flag == "-j") options.jobs = ParseJobCount(value(), "-j");
    else if (flag == "--exclude") options.excludes.push_back(value());
    else if (flag == "--only") options.only.push_back(value());
    else if (flag == "--launcher-records") options.launcher_records = true;
    else if (flag == "--host-launcher") options.launchers.host = SplitShellWords(value());
    else if (flag == "--device-launcher") options.launchers.device = SplitShellWords(value());
    else if (flag == "--module-id") options.module_id = value();
    else if (flag == "--split-compile") options.split_compile = value();
    else if (flag == "--early-host") options.early_host = value();
    else if (flag == "--priority-ladder") options.priority_ladder = value();
    else if (flag == "--launcher-for") {
      std::string text = value();
      options.launchers_for.emplace_back(text, value());
    }
    else throw std::invalid_argument("unknown option " + flag + "\n" + kGenUsage);
  }
  if (options.out_dir.empty() || options.compdb.empty() == options.nvcc_call.empty()) {
    throw std::invalid_argument(kGenUsage);
  }
  auto absolute = [](const std::string& path) {
    return std::filesystem::absolute(path).lexically_normal().string();
  };
  CompileModesOf(options);  // says what is wrong now, not after the dryruns
  if (options.priority_ladder != "on" && options.priority_ladder != "off" && options.priority_ladder != "auto") {
    throw std::invalid_argument("FASTCUDA_PRIORITY_LADDER must be on, off or auto, not " + options.priority_ladder);
  }
  options.out_dir = absolute(options.out_dir);
  if (!options.compdb.empty()) options.compdb = absolute(options.compdb);
  return options;
}

unsigned Jobs(const GenOptions& options) {
  return options.jobs ? options.jobs : std::max(1u, std::thread::hardware_concurrency());
}

int GenerateForCall(const GenOptions& options) {
  const std::string cwd = std::filesystem::current_path().string();
  std::vector<std::string> nvcc_args(options.nvcc_call.begin() + 1, options.nvcc_call.end());
  StepLaunchers launchers = options.launchers;
  AddLauncherVersions(launchers, ProgramVersion);
  NvccPlan plan = PlanNvccCall({options.nvcc_call.front(), nvcc_args, cwd, CurrentEnvironment()},
                               [&](const std::string& output) { return WorkDirFor(TuRoot(options.out_dir), output); },
                               launchers, CompileModesOf(options), NvccDryrunRunner(), RealFileSystem());
  if (!plan.graph) {
    Complain("cannot split this nvcc call: " + plan.fallback_reason);
    return 2;
  }
  std::cerr << plan.dryrun_other_output;
  const StepGraph& graph = *plan.graph;
  FragmentOptions fragment;
  fragment.fastcuda = SelfExecutable();
  fragment.env_file = EnvFilePath(graph.work_dir);
  fragment.ninja_cwd = options.out_dir;
  WriteCallManifest(graph, fragment, ParsePoolDepths(options.pools), options.out_dir, Jobs(options));
  return 0;
}

/// The `fastcuda gen` call that regenerates with the same options.
std::vector<std::string> GenCommandLine(const GenOptions& options) {
  std::vector<std::string> command = {SelfExecutable(), "gen", "--compdb", options.compdb,
                                      "--out", options.out_dir};
  if (!options.pools.empty()) command.insert(command.end(), {"--pools", options.pools});
  if (options.jobs) command.insert(command.end(), {"-j", std::to_string(options.jobs)});
  for (const std::string& text : options.only) command.insert(command.end(), {"--only", text});
  for (const std::string& text : options.excludes) command.insert(command.end(), {"--exclude", text});
  if (options.launcher_records) command.push_back("--launcher-records");
  // The launchers are written out, so that a changed environment regenerates.
  if (!options.launchers.host.empty()) {
    command.insert(command.end(), {"--host-launcher", JoinShellWords(options.launchers.host)});
  }
  if (!options.launchers.device.empty()) {
    command.insert(command.end(), {"--device-launcher", JoinShellWords(options.launchers.device)});
  }
  for (const auto& [text, launcher] : options.launchers_for) {
    command.insert(command.end(), {"--launcher-for", text, launcher});
  }
  if (!options.module_id.empty()) command.insert(command.end(), {"--module-id", options.module_id});
  if (!options.split_compile.empty()) command.insert(command.end(), {"--split-compile", options.split_compile});
  if (!options.early_host.empty()) command.insert(command.end(), {"--early-host", options.early_host});
  command.insert(command.end(), {"--priority-ladder", options.priority_ladder});
  return command;
}

/// What `gen` planned with beyond the database: its command line and the
/// environment the toolchain reads (a changed CPATH must plan anew).
std::string GenerationKey(const GenOptions& options) {
  return JoinShellWords(GenCommandLine(options)) + "\n" +
         EnvironmentKey(ToolchainEnvironment(CurrentEnvironment()));
}

/// Removes the intermediates of every TU whose object is missing (see
/// OrphanedIntermediates).
void RemoveOrphanedIntermediates(const std::string& out_dir) {
  RealFileSystem fs;
  std::vector<KeptFiles> kept = ParseKeptFiles(fs.Read(KeptFilesPath(out_dir)).value_or(""));
  for (const std::string& path : OrphanedIntermediates(kept, fs)) std::filesystem::remove(path);
}

uintmax_t FileSize(const std::string& path) {
  std::error_code missing;
  uintmax_t size = std::filesystem::file_size(path, missing);
  return missing ? 0 : size;
}

/// True when the manifest lacks step times that Ninja's log now holds: the
/// first build that finds the log grown regenerates, so that the TU order
/// and the priority ladder come from measured times.
bool HistoryArrived(const GenOptions& options) {
  std::optional<std::string> size_then = RealFileSystem().Read(NoHistoryPath(options.out_dir));
  return size_then && FileSize(NinjaLogPath(options.out_dir)) > std::stoull("0" + *size_then);
}

/// The entry's output as an absolute path, which --only, --exclude and
/// --launcher-for match.
std::string AbsoluteOutput(const CompileEntry& entry) {
  return ResolvePath(entry.directory, entry.output);
}

/// Drops the entries whose absolute output contains one of `excludes`, or
/// none of `only` (when given); returns how many.
size_t LeaveOutExcluded(CompileDatabase& database, const GenOptions& options) {
  auto contains_any = [](const std::string& output, const std::vector<std::string>& texts) {
    return std::any_of(texts.begin(), texts.end(), [&](const std::string& text) {
      return output.find(text) != std::string::npos;
    });
  };
  return std::erase_if(database.entries, [&](const CompileEntry& entry) {
    std::string output = AbsoluteOutput(entry);
    return contains_any(output, options.excludes) ||
           (!options.only.empty() && !contains_any(output, options.only));
  });
}

/// Two entries that write one file would be two Ninja edges with one output:
/// says which, instead of Ninja's message about FastCuda's own files.
void RequireDistinctOutputs(const CompileDatabase& database) {
  std::map<std::string, const CompileEntry*> writers;
  for (const CompileEntry& entry : database.entries) {
    auto [earlier, added] = writers.emplace(AbsoluteOutput(entry), &entry);
    if (!added) {
      throw CompileDatabaseError("the entries for " + earlier->second->file + " and " + entry.file +
                                 " both write " + earlier->first + "; give each its own -o");
    }
  }
}

/// Gives the entries that `--launcher-for` names their launcher.
void AddLaunchers(CompileDatabase& database, const GenOptions& options) {
  for (CompileEntry& entry : database.entries) {
    std::string output = AbsoluteOutput(entry);
    for (const auto& [text, launcher] : options.launchers_for) {
      if (entry.launcher.empty() && output.find(text) != std::string::npos) {
        entry.launcher = SplitShellWords(launcher);
      }
    }
  }
}

/// Tells `fastcuda --graph` how each split TU is built (entries nvcc runs
/// whole have no header depfiles, so the launcher builds those itself).
void WriteTuRecords(const CompileDatabase& database, const GlobalPlan& plan) {
  for (size_t i = 0; i < plan.graphs.size(); ++i) {
    const StepGraph& graph = plan.graphs[i];
    TuRecord record{graph.cwd, database.entries[i].nvcc, {}};
    for (const GraphStep& step : graph.steps) {
      if (!step.kept_depfile.empty()) record.depfiles.push_back(step.kept_depfile);
    }
    std::string path = TuRecordPath(graph.work_dir);
    if (record.depfiles.empty()) std::filesystem::remove(path);
    else WriteFileIfChanged(path, FormatTuRecord(record));
  }
}

/// --priority-ladder: "on", "off", or "auto": on where the Ninja that will
/// run the graph ranks edges by their path (1.12 and later).
bool PriorityLadderWanted(const GenOptions& options) {
  if (options.priority_ladder != "auto") return options.priority_ladder == "on";
  return NinjaMinorVersion(NinjaProgram()) >= 12;
}

DryrunCache LoadCache(const std::string& path) {
  std::optional<std::string> text = RealFileSystem().Read(path);
  if (!text) return {};
  try {
    return ParseJsonBytes(*text).get<DryrunCache>();
  } catch (const nlohmann::json::exception&) {
    return {};  // a damaged cache only costs dryruns
  }
}

int GenerateForDatabase(const GenOptions& options) {
  RealFileSystem fs;
  std::optional<std::string> text = fs.Read(options.compdb);
  if (!text) throw CompileDatabaseError("cannot read " + options.compdb);
  CompileDatabase database = ParseCompileDatabase(
      *text, options.compdb, std::filesystem::path(options.compdb).parent_path().string());

  size_t excluded = LeaveOutExcluded(database, options);
  RequireDistinctOutputs(database);
  AddLaunchers(database, options);

  const std::string cache_path = DryrunCachePath(options.out_dir);
  DryrunCache cache = LoadCache(cache_path);
  GlobalPlanOptions planning{options.out_dir, Jobs(options), options.launcher_records, options.launchers,
                             CompileModesOf(options), CurrentEnvironment()};
  AddLauncherVersions(planning.launchers, ProgramVersion);
  for (const CompileEntry& entry : database.entries) {
    AddLauncherVersion(planning.launchers.versions, entry.launcher, ProgramVersion);
  }
  GlobalPlan plan = PlanCompileDatabase(database, planning, cache, NvccDryrunRunner(), fs);
  if (options.launcher_records) WriteTuRecords(database, plan);

  GlobalManifestOptions manifest;
  manifest.out_dir = options.out_dir;
  manifest.fastcuda = SelfExecutable();
  manifest.regenerate_command = GenCommandLine(options);
  manifest.regenerate_inputs = {options.compdb, manifest.fastcuda};
  for (const auto* files : {&plan.nvcc_programs, &plan.response_files}) {
    manifest.regenerate_inputs.insert(manifest.regenerate_inputs.end(), files->begin(), files->end());
  }
  manifest.pools = ParsePoolDepths(options.pools);
  std::string ninja_log = fs.Read(NinjaLogPath(options.out_dir)).value_or("");
  manifest.history = ParseNinjaLog(ninja_log);
  if (manifest.history.empty()) {
    WriteFileIfChanged(NoHistoryPath(options.out_dir), std::to_string(ninja_log.size()));
  } else {
    std::filesystem::remove(NoHistoryPath(options.out_dir));
  }
  manifest.memory_history =
      ParseStepMemoryLog(fs.Read(StepMemoryLogPath(options.out_dir)).value_or(""));

  manifest.priority_ladder = PriorityLadderWanted(options);
  manifest.memory_budget_kib = MemoryBudgetKib(EnvironmentVariable("FASTCUDA_MEMORY_BUDGET"), AvailableMemoryKib());
  manifest.jobs = Jobs(options);
  for (const auto& [path, content] : GlobalManifestFiles(plan.graphs, manifest)) {
    // The top manifest is always written: Ninja compares its mtime with the
    // database's to decide whether to regenerate.
    if (path == GlobalManifestPath(options.out_dir)) WriteFileAtomically(path, content);
    else WriteFileIfChanged(path, content);
  }
  WriteFileIfChanged(cache_path, DumpJsonBytes(nlohmann::json(cache)) + "\n");
  std::vector<KeptFiles> kept;
  for (const StepGraph& graph : plan.graphs) kept.push_back(KeptFilesOf(graph));
  WriteFileIfChanged(KeptFilesPath(options.out_dir), FormatKeptFiles(kept));
  WriteFileIfChanged(GenCommandPath(options.out_dir), GenerationKey(options));

  std::cerr << "fastcuda: " << database.entries.size() << " CUDA TUs (" << plan.shapes
            << " command shapes, " << plan.dryruns_run << " dryruns run, " << plan.dryruns_cached
            << " cached), " << database.skipped << " other entries left out"
            << (excluded ? ", " + std::to_string(excluded) + " excluded" : "") << "\n";
  for (const std::string& entry : plan.whole_nvcc_entries) {
    std::cerr << "fastcuda: nvcc runs whole for " << entry << "\n";
  }
  return 0;
}

}  // namespace

int GenMain(const std::vector<std::string>& args) {
  GenOptions options = ParseGenOptions(args);
  try {
    return options.compdb.empty() ? GenerateForCall(options) : GenerateForDatabase(options);
  } catch (const CompileDatabaseError& error) {
    Complain(error.what());
    return 2;
  }
}

int BuildMain(const std::vector<std::string>& args) {
  GenOptions options = ParseGenOptions(args);
  if (options.compdb.empty()) throw std::invalid_argument("build needs --compdb FILE --out DIR");
  DirectoryLock lock(options.out_dir, "build.lock", [&] {
    Complain("another fastcuda build is running in " + options.out_dir + "; waiting for it to finish");
  });
  RealFileSystem fs;
  if (!fs.IsFile(GlobalManifestPath(options.out_dir)) || HistoryArrived(options) ||
      fs.Read(GenCommandPath(options.out_dir)) != GenerationKey(options)) {
    if (int status = GenMain(args); status != 0) return status;
  }
  RemoveOrphanedIntermediates(options.out_dir);
  ProcessSpec ninja{{NinjaProgram(), "-C", options.out_dir}, "", {}, false, true, lock.fd()};
  for (const std::string& argument : NinjaJobArgumentsHere(options.jobs, NinjaProgram())) {
    ninja.argv.push_back(argument);
  }
  return RunProcess(ninja).exit_code;
}

}  // namespace fastcuda

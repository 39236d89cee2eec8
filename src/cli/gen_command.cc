// `fastcuda gen`: Ninja manifests for one nvcc call or a whole compile
// database.
#include <algorithm>
#include <filesystem>
#include <iostream>
#include <nlohmann/json.hpp>
#include <utility>

#include "ninja-gen/global_manifest.h"
#include "src/base/file_system.h"
#include "src/base/json_bytes.h"
#include "src/base/kept_depfile.h"
#include "src/base/machine.h"
#include "src/base/ninja_jobs.h"
#include "src/base/parallel_for.h"
#include "src/base/process.h"
#include "src/base/shell_words.h"
#include "src/base/toolchain_environment.h"
#include "src/cli/call_manifest.h"
#include "src/cli/commands.h"
#include "src/cli/gen_command.h"
#include "src/cli/gen_options.h"
#include "src/graph/kept_intermediates.h"
#include "src/graph/launchers.h"
#include "src/graph/step_graph.h"
#include "src/nvcc/nvcc_options.h"
#include "src/plan/first_build_estimate.h"
#include "src/plan/global_graph.h"
#include "src/plan/graph_dir.h"
#include "src/plan/launcher_build.h"
#include "src/plan/memory_budget.h"
#include "src/plan/nvcc_call.h"
#include "src/plan/tu_record.h"

namespace fastcuda {
namespace {

/// `gen -- NVCC ARGS...`: the manifest of one call.
int GenerateForCall(const GenOptions& options, const CommandIo& io) {
  const std::string cwd = std::filesystem::current_path().string();
  std::vector<std::string> nvcc_args(options.nvcc_call.begin() + 1, options.nvcc_call.end());
  StepLaunchers launchers = options.launchers;
  AddLauncherVersions(launchers, VersionProbeOf(io.runner));
  NvccPlan plan = PlanNvccCall(
      {options.nvcc_call.front(), nvcc_args, cwd, io.environment},
      [&](const std::string& output) { return WorkDirFor(TuRoot(options.out_dir), output); }, launchers,
      CompileModesOf(options), NvccDryrunRunner(io.runner, io.environment), io.fs);
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
  MachineLimits machine = MachineLimitsHere(io.fs);
  WriteCallManifest(graph, fragment, GraphPools(options, launchers, io.environment, machine.cpus),
                    options.out_dir, PlanLimits(io.environment, options.jobs, machine), io.fs);
  return 0;
}

/// The entry's output as an absolute path, which --only, --exclude and
/// --launcher-for match.
std::string AbsoluteOutput(const CompileEntry& entry) { return ResolvePath(entry.directory, entry.output); }

/// Drops the entries whose absolute output contains one of `excludes`, or
/// none of `only` (when given); returns how many.
size_t LeaveOutExcluded(CompileDatabase& database, const GenOptions& options) {
  auto contains_any = [](const std::string& output, const std::vector<std::string>& texts) {
    return std::any_of(texts.begin(), texts.end(),
                       [&](const std::string& text) { return output.find(text) != std::string::npos; });
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

/// GenOptions::object_depfiles: the depfile options CMake's Makefile rule
/// adds to the command it exports, for each entry that has none.
void AskForObjectDepfiles(CompileDatabase& database) {
  for (CompileEntry& entry : database.entries) {
    if (entry.output.empty() || WithoutDepfileOptions(entry.nvcc).size() != entry.nvcc.size()) continue;
    entry.nvcc.insert(entry.nvcc.end(), {"-MD", "-MT", entry.output, "-MF", entry.output + ".d"});
  }
}

/// Tells `fastcuda --graph` how each split TU is built (entries nvcc runs
/// whole have no header depfiles, so the launcher builds those itself), and
/// `fastcuda --build-graph` which TUs there are and where their steps' output
/// is saved. Planned on `threads` threads.
void AddTuRecords(const CompileDatabase& database, const GlobalPlan& plan, const GenOptions& options,
                  unsigned threads, Generation& generation) {
  std::vector<std::optional<TuRecord>> records(plan.graphs.size());  // none: no depfile kept
  ParallelFor(plan.graphs.size(), threads, [&](size_t i) {
    const StepGraph& graph = plan.graphs[i];
    // As the launcher compares it: without the depfile it writes itself.
    TuRecord record;
    record.cwd = graph.cwd;
    record.command_hash = TuCommandHash(WithoutDepfileOptions(database.entries[i].nvcc));
    record.source = KeptHeadersSource(graph);
    for (size_t step = 0; step < graph.steps.size(); ++step) {
      const GraphStep& graph_step = graph.steps[step];
      if (graph_step.kind == StepKind::kCacheLookup) {
        record.cache_result = ResolvePath(graph.cwd, graph_step.outputs.front());
        record.cache_depfile = graph_step.kept_depfile;
      } else if (!graph_step.kept_depfile.empty()) {
        record.depfiles.push_back(graph_step.kept_depfile);
      }
      if (options.launcher_builds)
        record.captures.push_back(CapturePath(CaptureDir(graph.work_dir), graph, step));
      record.landmarks.push_back(ResolvePath(graph.cwd, Landmark(graph, step)));
    }
    if (!record.depfiles.empty()) records[i] = record;
  });
  std::vector<std::pair<std::string, TuRecord>> keyed;
  std::vector<GraphObject> objects;
  for (size_t i = 0; i < plan.graphs.size(); ++i) {
    const StepGraph& graph = plan.graphs[i];
    generation.removed.push_back(EarlierTuRecordPath(graph.work_dir));
    if (!records[i]) continue;
    keyed.emplace_back(graph.work_dir, *records[i]);
    if (!options.launcher_builds) continue;
    for (const std::string& object : KeptFilesOf(graph).objects) {
      objects.push_back({object, ResolvePath(graph.cwd, graph.source)});
    }
  }
  if (keyed.empty()) generation.removed.push_back(TuRecordsPath(options.out_dir));
  else generation.files[TuRecordsPath(options.out_dir)] = FormatTuRecords(keyed);
  if (options.launcher_builds)
    generation.files[GraphObjectsPath(options.out_dir)] = FormatGraphObjects(objects);
}

/// --priority-ladder: "on", "off", or "auto": on where the Ninja that will
/// run the graph ranks edges by their path (1.12 and later).
bool PriorityLadderWanted(const GenOptions& options, const CommandIo& io) {
  if (options.priority_ladder != "auto") return options.priority_ladder == "on";
  return NinjaMinorVersion(io.runner, NinjaProgram(io.environment)) >= 12;
}

DryrunCache LoadCache(const std::string& path, const FileSystem& fs) {
  std::optional<std::string> text = fs.Read(path);
  if (!text) return {};
  try {
    return ParseJsonBytes(*text).get<DryrunCache>();
  } catch (const nlohmann::json::exception&) {
    return {};  // a damaged cache only costs dryruns
  }
}

/// Whether the manifest's step times were measured: NoHistoryPath, holding
/// the log's size, while they were not (none, or only a first phase's
/// estimates).
void MarkWhetherMeasured(std::string_view ninja_log, const std::vector<StepGraph>& graphs,
                         const GlobalManifestOptions& manifest, const FileSystem& fs,
                         Generation& generation) {
  const bool measured =
      HistoryHasStepTimes(graphs, manifest) &&
      !OnlyEstimated(ParseFirstPhase(fs.Read(FirstPhasePath(manifest.out_dir)).value_or("")), ninja_log);
  if (measured) generation.removed.push_back(NoHistoryPath(manifest.out_dir));
  else generation.files[NoHistoryPath(manifest.out_dir)] = std::to_string(ninja_log.size());
}

}  // namespace

GenerationContext LoadGenerationContext(const GenOptions& options, const CommandIo& io) {
  return {io.environment, SelfExecutable(), PriorityLadderWanted(options, io), MachineLimitsHere(io.fs),
          VersionProbeOf(io.runner)};
}

Generation GenerateForDatabase(const GenOptions& options, const GenerationContext& context,
                               const DryrunRunner& runner, const FileSystem& fs) {
  std::optional<std::string> text = fs.Read(options.compdb);
  if (!text) throw CompileDatabaseError("cannot read " + options.compdb);
  return GenerateForEntries(
      ParseCompileDatabase(*text, options.compdb,
                           std::filesystem::path(options.compdb).parent_path().string()),
      options, context, runner, fs);
}

Generation GenerateForEntries(CompileDatabase database, const GenOptions& options,
                              const GenerationContext& context, const DryrunRunner& runner,
                              const FileSystem& fs, const std::optional<ManifestPart>& part) {
  PlannedLimits limits = PlanLimits(context.environment, options.jobs, context.machine);
  size_t excluded = LeaveOutExcluded(database, options);
  RequireDistinctOutputs(database);
  AddLaunchers(database, options);
  if (options.object_depfiles) AskForObjectDepfiles(database);

  DryrunCache cache = LoadCache(DryrunCachePath(options.out_dir), fs);
  GlobalPlanOptions planning{options.out_dir,          limits.jobs,
                             options.launcher_records, options.launchers,
                             CompileModesOf(options),  context.environment};
  AddLauncherVersions(planning.launchers, context.launcher_version);
  for (const CompileEntry& entry : database.entries) {
    AddLauncherVersion(planning.launchers.versions, entry.launcher, context.launcher_version);
  }
  GlobalPlan plan = PlanCompileDatabase(database, planning, cache, runner, fs);
  Generation generation;
  if (options.launcher_records) AddTuRecords(database, plan, options, limits.jobs, generation);

  GlobalManifestOptions manifest;
  manifest.out_dir = options.out_dir;
  manifest.fastcuda = context.fastcuda;
  manifest.regenerate_command = GenCommandLine(options);
  generation.inputs = {manifest.fastcuda};
  for (const auto* files : {&plan.nvcc_programs, &plan.response_files}) {
    generation.inputs.insert(generation.inputs.end(), files->begin(), files->end());
  }
  manifest.regenerate_inputs = {options.compdb};
  manifest.regenerate_inputs.insert(manifest.regenerate_inputs.end(), generation.inputs.begin(),
                                    generation.inputs.end());
  manifest.pools = GraphPools(options, planning.launchers, context.environment, context.machine.cpus);
  const std::string ninja_log = fs.Read(part ? part->ninja_log : NinjaLogPath(options.out_dir)).value_or("");
  manifest.history = ParseNinjaLog(ninja_log);
  if (part) {
    manifest.part_of_manifest_in = part->dir;
    manifest.manifest_has_defaults = part->has_defaults;
    manifest.not_by_default = part->not_by_default;
    for (const CompileEntry& entry : database.entries) {
      manifest.failure_notes.push_back({entry.output, entry.ninja_command, part->ninja_shows_exit_code});
    }
  }
  manifest.priority_ladder = context.priority_ladder;
  manifest.capture_output = options.launcher_builds;
  // CMake writes the database in its top build directory, from which its
  // Makefiles name the objects.
  if (options.object_lines)
    manifest.object_lines_top = std::filesystem::path(options.compdb).parent_path().string();
  manifest.jobs = limits.jobs;
  for (auto& [path, content] : GlobalManifestFiles(plan.graphs, manifest)) generation.files[path] = content;
  generation.ninja_sees_every_read = std::all_of(plan.graphs.begin(), plan.graphs.end(), NinjaSeesEveryRead);
  generation.dry_run_files = DryRunDyndepFiles(plan.graphs, manifest, generation.files);
  MarkWhetherMeasured(ninja_log, plan.graphs, manifest, fs, generation);
  generation.files[DryrunCachePath(options.out_dir)] = DumpJsonBytes(nlohmann::json(cache)) + "\n";
  std::vector<KeptFiles> kept;
  for (const StepGraph& graph : plan.graphs) {
    kept.push_back(KeptFilesOf(graph));
    for (const GraphStep& step : graph.steps) {
      for (const std::string& kept : {step.kept_depfile, step.ninja_depfile_from}) {
        if (!kept.empty()) generation.kept_depfiles.push_back(ResolvePath(graph.cwd, kept));
      }
    }
  }
  std::vector<KeptFiles> kept_before = ParseKeptFiles(fs.Read(KeptFilesPath(options.out_dir)).value_or(""));
  std::vector<std::string> left_behind = IntermediatesLeftBehind(kept_before, kept);
  generation.removed.insert(generation.removed.end(), left_behind.begin(), left_behind.end());
  generation.files[KeptFilesPath(options.out_dir)] = FormatKeptFiles(kept);
  generation.files[GenCommandPath(options.out_dir)] = GenerationKey(options, context.environment);
  generation.files[ToolchainProgramsPath(options.out_dir)] = FormatProgramRecord(plan.programs);
  const std::vector<std::string> peaks =
      PlanStepPeaks(plan.graphs, ReadPlannedPeaks(options.out_dir, fs), limits);
  for (size_t i = 0; i < plan.graphs.size(); ++i) {
    const std::string path = StepPeaksPath(plan.graphs[i].work_dir);
    if (peaks[i].empty()) generation.removed.push_back(path);
    else generation.files[path] = peaks[i];
  }
  generation.files[PlannedLimitsPath(options.out_dir)] = FormatPlannedLimits(limits);

  generation.report = "fastcuda: " + std::to_string(database.entries.size()) + " CUDA TUs (" +
                      std::to_string(plan.shapes) + " command shapes, " + std::to_string(plan.dryruns_run) +
                      " dryruns run, " + std::to_string(plan.dryruns_cached) + " cached), " +
                      std::to_string(database.skipped) + " other entries left out" +
                      (excluded ? ", " + std::to_string(excluded) + " excluded" : "") + "\n";
  for (const std::string& entry : plan.whole_nvcc_entries) {
    generation.report += "fastcuda: nvcc runs whole for " + entry + "\n";
  }
  generation.report += UnversionedLaunchersReport(planning.launchers.versions);
  return generation;
}

void WriteGeneration(const Generation& generation, const std::string& out_dir, WritableFileSystem& fs) {
  for (const auto& [path, content] : generation.files) {
    // The top manifest is always written: Ninja compares its mtime with the
    // database's to decide whether to regenerate.
    if (path == GlobalManifestPath(out_dir)) fs.Write(path, content);
    else WriteIfChanged(fs, path, content);
  }
  for (const auto& [path, file] : generation.dry_run_files) {
    std::optional<std::string> held = fs.Read(path);
    if (held && (file.keeps_any || *held == file.text ||
                 std::find(file.kept_if.begin(), file.kept_if.end(), *held) != file.kept_if.end())) {
      continue;
    }
    fs.Write(path, file.text);
  }
  for (const std::string& path : generation.removed) fs.Remove(path);
  for (const std::string& list : UnnamedHeaderLists(fs, generation.kept_depfiles)) fs.Remove(list);
}

int Generate(const GenOptions& options, const CommandIo& io) {
  try {
    if (options.compdb.empty()) return GenerateForCall(options, io);
    Generation generation = GenerateForDatabase(options, LoadGenerationContext(options, io),
                                                NvccDryrunRunner(io.runner, io.environment), io.fs);
    WriteGeneration(generation, options.out_dir, io.fs);
    if (options.report) std::cerr << generation.report;
    return 0;
  } catch (const CompileDatabaseError& error) {
    Complain(error.what());
    return 2;
  }
}

int GenMain(const std::vector<std::string>& args, const CommandIo& io) {
  return Generate(ParseGenOptions(args, io.environment), io);
}

}  // namespace fastcuda

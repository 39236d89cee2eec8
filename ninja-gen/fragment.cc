#include "ninja-gen/fragment.h"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <set>
#include <stdexcept>

#include "ninja-gen/dyndep.h"
#include "src/base/file_system.h"
#include "src/base/object_lines.h"
#include "src/base/shell_words.h"
#include "src/base/stable_hash.h"
#include "src/base/text.h"
#include "src/graph/launchers.h"
#include "src/graph/stubbed_intermediates.h"
#include "src/graph/whole_call_cache.h"
#include "src/graph/work_dir_commands.h"
#include "src/plan/graph_dir.h"
#include "src/plan/memory_budget.h"
#include "src/plan/step_protocol.h"

namespace fastcuda {
namespace {

/// NinjaPath for one graph, and whether its steps run where Ninja does.
class PathMapper {
 public:
  PathMapper(const StepGraph& graph, const FragmentOptions& options)
      : graph_(graph), ninja_cwd_(options.ninja_cwd), same_dir_(graph.cwd == options.ninja_cwd) {}

  std::string operator()(const std::string& path) const { return NinjaPath(graph_, ninja_cwd_, path); }

  std::vector<std::string> operator()(const std::vector<std::string>& paths) const {
    std::vector<std::string> mapped;
    for (const std::string& path : paths) mapped.push_back((*this)(path));
    return mapped;
  }

  bool same_dir() const { return same_dir_; }

 private:
  const StepGraph& graph_;
  std::string ninja_cwd_;
  bool same_dir_;
};

/// Step `index`'s description: its kind, architecture and source; for the
/// step that writes the object where FragmentOptions::object_lines_top is
/// set, the object's line (ObjectLine).
std::string Description(const StepGraph& graph, size_t index, const FragmentOptions& options) {
  const GraphStep& step = graph.steps[index];
  if (!options.object_lines_top.empty() && !graph.final_outputs.empty() &&
      StepWriting(graph, graph.final_outputs.front()) == index) {
    return ObjectLine(ResolvePath(graph.cwd, graph.final_outputs.front()), options.object_lines_top);
  }
  std::string text(StepKindName(step.kind));
  if (!step.arch.empty()) text += " " + step.arch;
  return text + " " + graph.source;
}

/// The files a step's edge waits for, as Ninja names them: what the step
/// reads, and a file of each step it waits for that it reads nothing of.
struct StepWaits {
  std::vector<std::string> inputs;
  std::vector<std::string> implicit_inputs;
};

/// What step `index`'s edge would name without a cache lookup between.
StepWaits WaitsOf(const StepGraph& graph, size_t index, const PathMapper& paths) {
  const GraphStep& step = graph.steps[index];
  StepWaits waits{paths(step.inputs), {}};
  std::set<std::string> listed(waits.inputs.begin(), waits.inputs.end());
  for (size_t earlier : step.after) {
    std::string landmark = paths(Landmark(graph, earlier));
    const std::vector<std::string>& outputs = graph.steps[earlier].outputs;
    bool linked = std::any_of(outputs.begin(), outputs.end(),
                              [&](const std::string& o) { return listed.count(paths(o)); });
    if (!linked && listed.insert(landmark).second) waits.implicit_inputs.push_back(landmark);
  }
  return waits;
}

/// The edges that wait for the whole-call cache's lookup through its dyndep
/// file, with what they wait for after each outcome: on a miss, all that
/// their edges would name without it.
std::vector<LookupWaiter> LookupWaiters(const StepGraph& graph, const PathMapper& paths) {
  std::vector<LookupWaiter> waiters;
  for (size_t i = 0; i < graph.steps.size(); ++i) {
    const GraphStep& step = graph.steps[i];
    if (!WaitsThroughDyndep(step)) continue;
    StepWaits waits = WaitsOf(graph, i, paths);
    waits.inputs.insert(waits.inputs.end(), waits.implicit_inputs.begin(), waits.implicit_inputs.end());
    waiters.push_back({paths(Landmark(graph, i)), paths(step.cache.on_hit), std::move(waits.inputs)});
  }
  return waiters;
}

/// The steps that read the sources and that ptxas step `index`, writing a
/// line table, waits for (through any chain of steps); none for another step.
std::set<size_t> SourceReadersBefore(const StepGraph& graph, size_t index) {
  std::set<size_t> readers;
  if (graph.steps[index].line_table_ptx.empty()) return readers;
  std::set<size_t> seen;
  std::vector<size_t> pending = graph.steps[index].after;
  while (!pending.empty()) {
    size_t earlier = pending.back();
    pending.pop_back();
    if (!seen.insert(earlier).second) continue;
    if (ReadsSources(graph.steps[earlier].kind)) readers.insert(earlier);
    pending.insert(pending.end(), graph.steps[earlier].after.begin(), graph.steps[earlier].after.end());
  }
  return readers;
}

/// True for a step whose run a ptxas writing a line table learns of
/// (RanStampPath): nvcc compiles a TU whole when anything it reads is newer,
/// so the ptxas compares its sources' mtimes with its last run's then, even
/// where its PTX came out the same (a source given an older mtime, with a
/// header edited).
bool FeedsLineTable(const StepGraph& graph, size_t index) {
  for (size_t later = index + 1; later < graph.steps.size(); ++later) {
    if (SourceReadersBefore(graph, later).contains(index)) return true;
  }
  return false;
}

/// The file a step that FeedsLineTable touches on every run.
std::string RanStampPath(const StepGraph& graph, size_t index) { return Landmark(graph, index) + ".ran"; }

/// True for a step that runs in every build: nvcc run whole that names no
/// depfile, and what reads the sources where they are to be read anew
/// (FragmentOptions::rerun_preprocessing), ptxas's line table too (its
/// `made_by` record spares the run where no source changed).
bool RerunsAlways(const GraphStep& step, const FragmentOptions& options) {
  return step.reruns_always ||
         (options.rerun_preprocessing &&
          (ReadsSources(step.kind) || step.compiles_source || !step.line_table_ptx.empty()));
}

/// True for a step that writes only what nvcc was asked to write (the
/// object): the build system around reads it (StepInvocation::fresh_outputs).
bool WritesOnlyFinalOutputs(const StepGraph& graph, const GraphStep& step) {
  const std::vector<std::string>& finals = graph.final_outputs;
  return !step.outputs.empty() &&
         std::all_of(step.outputs.begin(), step.outputs.end(), [&](const std::string& output) {
           return std::find(finals.begin(), finals.end(), output) != finals.end();
         });
}

/// The `fastcuda step` call of a step that wraps a program, but for the
/// options every step shares (WriteStepRules) and the outputs (`$out`).
StepInvocation InvocationOf(const StepGraph& graph, size_t index, const FragmentOptions& options,
                            const PathMapper& paths) {
  const GraphStep& step = graph.steps[index];
  StepInvocation call;
  if (!paths.same_dir()) call.cwd = graph.cwd;
  if (!step.depfile.empty()) {
    call.depfile = step.depfile;
    call.absolute_depfile = !paths.same_dir();
    call.kept_depfile = step.kept_depfile;
    call.depfile_from = step.depfile_from;
  }
  call.line_table_ptx = step.line_table_ptx;
  if (step.outputs.empty()) call.stamp = StampPath(graph, index);
  else if (FeedsLineTable(graph, index)) call.stamp = RanStampPath(graph, index);
  call.fresh_outputs = WritesOnlyFinalOutputs(graph, step);
  if (!options.capture_dir.empty()) call.capture = CapturePath(options.capture_dir, graph, index);
  call.failure_note = options.failure_note;
  call.keeps_tmpdir = step.launcher_words > 0;
  call.split_share = step.split_share;
  call.blank_disabled = step.host_source;
  call.never_keep_incbin = step.never_keep_incbin;
  call.response_key = step.response_key;
  call.stub_include = step.stub_include;
  for (const StubbedIntermediate& stubbed : StubbedIntermediates(graph)) {
    if (stubbed.consumer == index) call.stubbed_inputs.push_back(stubbed.path);
    if (stubbed.producer == index) call.stubbed_by_reader.push_back(stubbed.path);
  }
  call.regenerated_inputs = InputsThatMayBeStubs(graph, index);
  for (const UnreadIntermediate& unread : UnreadIntermediates(graph)) {
    if (unread.producer == index) call.stubbed_outputs.push_back(unread.path);
  }
  call.ninja_depfile_from = step.ninja_depfile_from;
  call.ninja_depfile = step.ninja_depfile;
  if (!call.kept_depfile.empty() || !call.ninja_depfile_from.empty())
    call.kept_headers_source = KeptHeadersSource(graph);
  // A host compile of the source itself reads headers that no `reads` names.
  if ((!step.ninja_depfile.empty() && !step.compiles_source) || !step.line_table_ptx.empty()) {
    call.reads = step.inputs;
    if (!options.env_file.empty()) call.reads.push_back(options.env_file);
    call.made_by = step.ninja_depfile.empty() ? LineTablePath(graph.work_dir, step) + ".made-by"
                                              : ObjectMadeByPath(graph.work_dir);
  }
  call.cache_lookup = step.kind == StepKind::kCacheLookup;
  call.cache = step.cache;
  if (call.cache_lookup && !step.cache.dyndep.empty()) call.waiters = LookupWaiters(graph, paths);
  if (step.kind == StepKind::kEmbedFatbin || !step.fatbin.fatbin_bytes.empty()) call.embedding = step.fatbin;
  call.fatbin_images = step.fatbin_images;
  call.argv = step.argv;
  std::optional<std::vector<std::string>> in_work_dir = CommandInWorkDir(step, graph.work_dir);
  if (in_work_dir) {
    call.program_dir = graph.work_dir;
    call.argv = std::move(*in_work_dir);
  }
  call.inputs = InputsForLauncher(step, graph.work_dir, in_work_dir.has_value());
  if (CachesHere(step.argv)) call.work_dir = graph.work_dir;
  call.memory_input = MemoryInputOf(step);
  if (!options.lock_dir.empty()) call.memory_peaks = StepPeaksPath(graph.work_dir);
  return call;
}

/// The variables a graph's edges name paths through (WriteStepEdges), in
/// the order they are tried: the work dir as `w`, then the cwd as `c` and
/// the source's directory as `s` where they are longer than a variable.
std::vector<std::pair<std::string, std::string>> PathVariablesOf(const StepGraph& graph) {
  std::vector<std::pair<std::string, std::string>> variables = {{"w", graph.work_dir}};
  for (const auto& [name, path] : {std::pair<std::string, std::string>{"c", graph.cwd},
                                   {"s", std::filesystem::path(graph.source).parent_path().string()}}) {
    if (path.size() > 4) variables.emplace_back(name, path);
  }
  return variables;
}

/// Ninja text (escaped) with the paths of PathVariablesOf through their
/// variables: the commands stay short, and the same wherever the graph is.
std::string ThroughPathVariables(std::string text, const StepGraph& graph) {
  for (const auto& [name, path] : PathVariablesOf(graph))
    text = ReplaceAll(text, EscapeNinjaValue(path), "${" + name + "}");
  return text;
}

/// The edge variables the rules' command template fills in: `flags` (the
/// step's own options) and `argv` (its command after `--`), with the work
/// dir, cwd and source dir through `${w}`, `${c}` and `${s}`
/// (ThroughPathVariables). Ninja expands an edge's variables when it parses
/// the edge, in the file's scope, so these are file-level variables bound
/// again before each graph's edges (see WriteStepEdges). Files shared by
/// every edge (the tool, the environment, the memory log) are file-level
/// variables the rule's command refers to; the outputs come from `$out`.
/// Keeping repeated text out of the manifest halves Ninja's parse time.
std::vector<std::pair<std::string, std::string>> CommandVariables(const StepGraph& graph, size_t index,
                                                                  const FragmentOptions& options,
                                                                  const PathMapper& paths) {
  const GraphStep& step = graph.steps[index];
  auto ninja = [](const std::vector<std::string>& words) { return EscapeNinjaValue(JoinShellWords(words)); };
  std::string flags, argv;
  if (step.kind == StepKind::kFilterDependencies) {
    std::vector<std::string> words = {"merge-depfiles", std::string(kCwdFlag), graph.cwd, "--target",
                                      DepfileTarget(graph)};
    if (graph.depfile_request.phony_targets) words.push_back("--phony-targets");
    if (std::string source = KeptHeadersSource(graph); !source.empty())
      words.insert(words.end(), {"--source", source});
    // Kept in the work dir for the object's step to hand to Ninja, which
    // wants no -MP rules: it need not be nvcc's layout until then.
    auto hands_it_over = [&](const GraphStep& other) {
      return other.ninja_depfile_from == step.outputs.front();
    };
    if (std::any_of(graph.steps.begin(), graph.steps.end(), hands_it_over)) words.push_back("--compact");
    if (!step.cache.result.empty()) {
      words.insert(words.end(), {"--skip-on-hit", step.cache.result});
      for (const std::string& depfile : step.cache.on_hit) words.insert(words.end(), {"--on-hit", depfile});
    }
    words.push_back("-o");
    flags = ninja(words);
    argv = ninja(step.inputs);
  } else if (step.kind == StepKind::kModuleId) {
    flags = ninja({"write-text", std::string(kCwdFlag), graph.cwd, step.module_id});
  } else if (step.kind == StepKind::kFatbinPlaceholder) {
    flags = ninja({"write-fatbin-placeholder", std::string(kCwdFlag), graph.cwd,
                   std::string(FatbinLayoutName(step.fatbin.layout))});
  } else {
    StepInvocation call = InvocationOf(graph, index, options, paths);
    flags = ninja(call.OwnWords());
    argv = ninja(call.CommandWords());
  }
  return {{"flags", ThroughPathVariables(flags, graph)}, {"argv", ThroughPathVariables(argv, graph)}};
}

/// The `fastcuda step` command of a rule of `kind`: the options every step
/// shares, then the edge's. `$env` is looked up when the command runs: an
/// edge may bind another. The memory log is the file-level `$step_options`;
/// the reads log the file-level `$read_options` of the steps that read the
/// sources, and `$host_read_options` of a host compile, which only an edge
/// that compiles the source itself binds (to `$read_options`).
std::string StepRuleCommand(StepKind kind) {
  StepInvocation shared;
  shared.env_file = "$env";  // a Ninja variable, written as it is
  shared.memory_kind = std::string(StepKindName(kind));
  std::string command = "$fastcuda step";
  for (const std::string& word : shared.SharedWords()) command += " " + word;
  command += " $step_options";
  if (ReadsSources(kind)) command += " $read_options";
  if (kind == StepKind::kHostCompile) command += " $host_read_options";
  return command + " $flags $out $argv";
}

}  // namespace

std::string NinjaPath(const StepGraph& graph, const std::string& ninja_cwd, const std::string& path) {
  return graph.cwd == ninja_cwd ? path : ResolvePath(graph.cwd, path);
}

void WriteStepRules(NinjaWriter& writer, const PoolDepths& pools, const FragmentOptions& shared) {
  writer.Variable("fastcuda", QuoteShellWord(shared.fastcuda));
  writer.Variable("env", QuoteShellWord(shared.env_file));
  StepInvocation logging;
  logging.rss_log = shared.memory_log;
  logging.temp_root = shared.temp_root;
  logging.lock_dir = shared.lock_dir;
  logging.manifest = shared.manifest;
  logging.failure_notes = shared.failure_notes;
  writer.Variable("step_options", JoinShellWords(logging.SharedWords()));
  StepInvocation reading;
  reading.reads_log = shared.reads_log;
  writer.Variable("read_options", JoinShellWords(reading.SharedWords()));
  std::set<std::string> declared;
  for (const auto& [kind, pool] : pools) {
    if (declared.insert(pool.name).second) writer.Pool(pool.name, pool.depth);
  }
  for (StepKind kind : kAllKinds) {
    // restat: `fastcuda step` keeps an output that came out unchanged, with
    // its old mtime, and Ninja then skips the steps that depend on it.
    std::string command = RunByFastcuda(kind) ? "$fastcuda $flags $out $argv" : StepRuleCommand(kind);
    NinjaRule rule{std::string(StepKindName(kind)),
                   {{"command", command}, {"description", "$desc"}, {"restat", "1"}}};
    if (ReadsSources(kind)) {
      rule.variables.push_back({"depfile", "$depfile"});
      rule.variables.push_back({"deps", "gcc"});
    }
    if (auto pool = pools.find(kind); pool != pools.end())
      rule.variables.push_back({"pool", pool->second.name});
    writer.Rule(rule);
  }
}

void WriteStepEdges(NinjaWriter& writer, const StepGraph& graph, const FragmentOptions& options,
                    const std::string& shared_env_file) {
  PathMapper paths(graph, options);
  for (const auto& [name, path] : PathVariablesOf(graph)) writer.PathVariable(name, path);
  // Every edge reads the shared environment file, bound in the header,
  // unless the edges bind `env` to the graph's own (Ninja evaluates an
  // edge's paths in its scope).
  if (options.env_file == shared_env_file && QuoteShellWord(shared_env_file) == shared_env_file)
    writer.NamePathsThrough("env", shared_env_file);
  for (size_t i = 0; i < graph.steps.size(); ++i) {
    const GraphStep& step = graph.steps[i];
    NinjaBuild build;
    build.rule = std::string(StepKindName(step.kind));
    build.outputs =
        step.outputs.empty() ? std::vector<std::string>{StampPath(graph, i)} : paths(step.outputs);
    if (!step.kept_depfile.empty()) build.implicit_outputs = {step.kept_depfile};
    if (!step.outputs.empty() && FeedsLineTable(graph, i))
      build.implicit_outputs.push_back(paths(RanStampPath(graph, i)));
    // A waiter of the cache's lookup names nothing else of its TU: Ninja
    // would start it once the lookup's result is written, before it read
    // the dyndep file, and a hit would need every step it names.
    if (WaitsThroughDyndep(step)) {
      build.implicit_inputs = {paths(step.cache.dyndep)};
      build.variables.push_back({"dyndep", paths(step.cache.dyndep)});
    } else {
      StepWaits waits = WaitsOf(graph, i, paths);
      build.inputs = std::move(waits.inputs);
      build.implicit_inputs = std::move(waits.implicit_inputs);
    }
    std::set<std::string> listed(build.inputs.begin(), build.inputs.end());
    listed.insert(build.implicit_inputs.begin(), build.implicit_inputs.end());
    build.implicit_inputs.push_back(options.env_file);
    for (const std::string& input : graph.implicit_inputs) {
      if (listed.insert(input).second) build.implicit_inputs.push_back(input);
    }
    build.order_only_inputs = graph.order_only_inputs;
    if (RerunsAlways(step, options)) build.implicit_inputs.push_back(AlwaysDirtyPath(graph.work_dir));
    for (size_t reader : SourceReadersBefore(graph, i))
      build.implicit_inputs.push_back(paths(RanStampPath(graph, reader)));
    if (options.env_file != shared_env_file) {
      build.variables.push_back({"env", QuoteShellWord(options.env_file)});
    }
    build.raw_variables = CommandVariables(graph, i, options, paths);
    build.raw_variables.insert(
        build.raw_variables.begin(),
        {"desc", ThroughPathVariables(EscapeNinjaValue(Description(graph, i, options)), graph)});
    if (!step.depfile.empty() && step.ninja_depfile.empty()) {
      build.raw_variables.push_back({"depfile", ThroughPathVariables(EscapeNinjaValue(step.depfile), graph)});
    }
    if (step.compiles_source && !step.depfile.empty() && step.ninja_depfile.empty()) {
      // The headers it read go to Ninja's deps log, and its start to the
      // reads log, as a preprocessing step's do (source_reads.h).
      build.variables.push_back({"deps", "gcc"});
      build.raw_variables.push_back({"host_read_options", "$read_options"});
    }
    if (!step.ninja_depfile.empty()) {
      build.variables.push_back({"depfile", paths(step.ninja_depfile)});
      build.variables.push_back({"deps", "gcc"});
    }
    writer.Build(build);
  }
  // Ninja never finds the output of a phony edge without inputs up to date.
  if (std::any_of(graph.steps.begin(), graph.steps.end(),
                  [&](const GraphStep& step) { return RerunsAlways(step, options); })) {
    NinjaBuild always_dirty;
    always_dirty.outputs = {AlwaysDirtyPath(graph.work_dir)};
    always_dirty.rule = "phony";
    writer.Build(always_dirty);
  }
}

std::optional<LookupDyndep> LookupDyndepOf(const StepGraph& graph, const FragmentOptions& options) {
  const GraphStep* lookup = CacheLookupOf(graph);
  if (!lookup || lookup->cache.dyndep.empty()) return std::nullopt;
  std::vector<LookupWaiter> waiters = LookupWaiters(graph, PathMapper(graph, options));
  return LookupDyndep{ResolvePath(graph.cwd, lookup->cache.dyndep), LookupDyndepText(waiters, /*hit=*/false),
                      LookupDyndepText(waiters, /*hit=*/true)};
}

std::string SingleGraphManifest(const StepGraph& graph, const FragmentOptions& options,
                                const PoolDepths& pools, const std::string& builddir) {
  NinjaWriter writer;
  writer.Comment("Generated by fastcuda for " + graph.source + "; do not edit.");
  writer.Variable("ninja_required_version", "1.10");
  if (!builddir.empty()) writer.Variable("builddir", builddir);
  WriteStepRules(writer, pools, options);
  WriteStepEdges(writer, graph, options, options.env_file);
  std::vector<std::string> defaults;
  for (const std::string& output : graph.final_outputs) {
    defaults.push_back(PathMapper(graph, options)(output));
  }
  writer.Default(defaults);
  return writer.text();
}

std::string DepfileTarget(const StepGraph& graph) {
  if (!graph.depfile_request.target.empty()) return graph.depfile_request.target;
  for (const std::string& output : graph.final_outputs) {
    const GraphStep& last = graph.steps.back();
    if (last.kind != StepKind::kFilterDependencies || last.outputs.front() != output) return output;
  }
  return "";
}

}  // namespace fastcuda

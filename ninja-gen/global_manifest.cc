#include "ninja-gen/global_manifest.h"

#include <algorithm>
#include <functional>
#include <map>
#include <numeric>
#include <set>

#include "ninja-gen/manifest_path.h"
#include "src/base/parallel_for.h"
#include "src/base/shell_words.h"
#include "src/base/stable_hash.h"
#include "src/graph/whole_call_cache.h"
#include "src/plan/graph_dir.h"

namespace fastcuda {
namespace {

/// Indexes of the graphs, longest expected critical path first, from each
/// graph's steps' remaining time (RemainingPathMs).
std::vector<size_t> ScheduleOrder(const std::vector<std::vector<int64_t>>& remaining) {
  std::vector<int64_t> length;
  for (const std::vector<int64_t>& steps : remaining) {
    length.push_back(steps.empty() ? 0 : *std::max_element(steps.begin(), steps.end()));
  }
  std::vector<size_t> order(remaining.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return length[a] > length[b]; });
  return order;
}

/// Where the manifest's Ninja runs, which its paths are relative to.
std::string NinjaCwd(const GlobalManifestOptions& options) {
  return options.part_of_manifest_in.empty() ? options.out_dir : options.part_of_manifest_in;
}

void WriteRegeneration(NinjaWriter& writer, const GlobalManifestOptions& options) {
  writer.Rule({"FASTCUDA_REGENERATE",
               {{"command", EscapeNinjaValue(JoinShellWords(options.regenerate_command))},
                {"description", "Regenerating the FastCuda graph"},
                {"generator", "1"}}});
  NinjaBuild build;
  // Ninja rebuilds its manifest only through an edge that names it as Ninja
  // does: relative to the directory it runs in.
  build.outputs = {"build.ninja"};
  build.rule = "FASTCUDA_REGENERATE";
  build.implicit_inputs = options.regenerate_inputs;
  writer.Build(build);
}

/// Phony edges for the files that steps read and no step of any graph
/// writes (sources, response files): a missing one (a source that the outer
/// build has yet to generate) fails only the steps that read it, as nvcc
/// would, not Ninja's whole run of the graph. Compared as Ninja names files
/// (`sub/../a.cu` is `a.cu`), which two spellings of one file would not be.
void WriteExternalInputs(NinjaWriter& writer, const std::vector<StepGraph>& graphs,
                         const std::function<std::string(const StepGraph&, const std::string&)>& ninja_path) {
  auto node = [&](const StepGraph& graph, const std::string& path) {
    return CanonicalizeManifestPath(ninja_path(graph, path));
  };
  std::set<std::string> written;
  for (const StepGraph& graph : graphs) {
    for (const GraphStep& step : graph.steps) {
      for (const std::string& output : step.outputs) written.insert(node(graph, output));
      if (!step.kept_depfile.empty()) written.insert(node(graph, step.kept_depfile));
    }
  }
  std::set<std::string> external;
  for (const StepGraph& graph : graphs) {
    for (const GraphStep& step : graph.steps) {
      for (const std::string& input : step.inputs) {
        if (!written.contains(node(graph, input))) external.insert(node(graph, input));
      }
    }
  }
  for (const std::string& file : external) writer.Build({{file}, {}, "phony", {}, {}, {}, {}, {}});
}

}  // namespace

std::map<std::string, std::string> GlobalManifestFiles(const std::vector<StepGraph>& graphs,
                                                       const GlobalManifestOptions& options) {
  std::map<std::string, std::string> files;
  std::vector<std::string> env_files;   // per graph
  std::map<std::string, size_t> users;  // env file -> graphs using it
  for (const StepGraph& graph : graphs) {
    std::string environment = EnvironmentFileText(graph.environment);
    env_files.push_back(SharedEnvFilePath(options.out_dir, environment));
    files[env_files.back()] = environment;
    ++users[env_files.back()];
  }
  const bool part = !options.part_of_manifest_in.empty();
  const std::string ninja_cwd = NinjaCwd(options);
  FragmentOptions shared;
  shared.fastcuda = options.fastcuda;
  shared.ninja_cwd = ninja_cwd;
  shared.memory_log = StepMemoryLogPath(options.out_dir);
  shared.reads_log = SourceReadsPath(options.out_dir);
  shared.temp_root = StepTempRoot(options.out_dir);
  shared.lock_dir = StepLocksDir(options.out_dir);
  shared.manifest = GlobalManifestPath(options.out_dir);
  if (!options.failure_notes.empty()) shared.failure_notes = FailureNotesPath(options.out_dir);
  shared.object_lines_top = options.object_lines_top;
  if (!users.empty()) {
    shared.env_file = std::max_element(users.begin(), users.end(), [](auto& a, auto& b) {
                        return a.second < b.second;
                      })->first;
  }

  auto ninja_path = [&](const StepGraph& graph, const std::string& path) {
    return NinjaPath(graph, ninja_cwd, path);
  };
  auto needed_by_default = [&](const StepGraph& graph) {
    return std::none_of(graph.final_outputs.begin(), graph.final_outputs.end(),
                        [&](const std::string& output) {
                          return options.not_by_default.contains(ninja_path(graph, output));
                        });
  };
  NinjaWriter top;
  top.Comment(part ? "Generated by fastcuda ninja: the steps of the nvcc edges; do not edit."
                   : "Generated by fastcuda gen --compdb; do not edit.");
  top.Variable("ninja_required_version", "1.10");
  if (!part) WriteRegeneration(top, options);
  WriteStepRules(top, options.pools, shared);
  // Every step's remaining time, once: for the TU order and the ladder.
  std::vector<std::vector<int64_t>> remaining(graphs.size());
  ParallelFor(graphs.size(), options.jobs, [&](size_t i) {
    remaining[i] = RemainingPathMs(graphs[i], options.history,
                                   [&](const std::string& path) { return ninja_path(graphs[i], path); });
  });
  // One file, not a subninja per TU: Ninja parses it in half the time. Each
  // TU's edges are written on their own, then joined in schedule order.
  const std::vector<size_t> order = ScheduleOrder(remaining);
  std::vector<NinjaWriter> edges(graphs.size());
  ParallelFor(order.size(), options.jobs, [&](size_t i) {
    const StepGraph& graph = graphs[order[i]];
    edges[i].Comment("steps of " + graph.source);
    FragmentOptions fragment = shared;
    fragment.env_file = env_files[order[i]];
    if (options.capture_output) fragment.capture_dir = CaptureDir(graph.work_dir);
    if (!options.failure_notes.empty()) fragment.failure_note = graph.work_dir;
    WriteStepEdges(edges[i], graph, fragment, shared.env_file);
  });
  std::vector<std::string> objects, dyndeps;
  for (size_t i = 0; i < order.size(); ++i) {
    top.Append(edges[i]);
    const StepGraph& graph = graphs[order[i]];
    for (const std::string& output : graph.final_outputs) objects.push_back(ninja_path(graph, output));
    const GraphStep* lookup = CacheLookupOf(graph);
    if (lookup && !lookup->cache.dyndep.empty() && needed_by_default(graph)) {
      dyndeps.push_back(ninja_path(graph, lookup->cache.dyndep));
    }
  }
  if (!part) WriteExternalInputs(top, graphs, ninja_path);
  std::vector<std::string> rungs;
  if (options.priority_ladder && !options.history.empty()) {
    for (size_t g = 0; g < graphs.size(); ++g) {
      if (!needed_by_default(graphs[g])) remaining[g].clear();
    }
    PriorityLadder ladder = PlanPriorityLadder(graphs, remaining, ninja_path);
    WrittenLadder written = WritePriorityLadder(top, ladder, LadderDir(options.out_dir));
    rungs = written.targets;
    for (const std::string& rung : written.rung_files) files[rung] = "";
    if (!written.dyndep.empty()) {
      dyndeps.push_back(written.dyndep);
      files[written.plan_path] = written.plan_text;
    }
  }
  if (!dyndeps.empty()) top.Build({{std::string(kLookupPassTarget)}, {}, "phony", dyndeps, {}, {}, {}, {}});
  files[LookupPassPath(options.out_dir)] = dyndeps.empty() ? "" : kLookupPassTarget;
  if (!options.failure_notes.empty()) {
    std::vector<std::pair<std::string, FailureNote>> notes;
    for (size_t i = 0; i < graphs.size(); ++i)
      notes.emplace_back(graphs[i].work_dir, options.failure_notes[i]);
    files[shared.failure_notes] = FormatFailureNotes(notes);
  }
  if (part) {
    if (options.manifest_has_defaults && !rungs.empty()) top.Default(rungs);
    files[StepsManifestPath(options.out_dir)] = top.text();
  } else {
    objects.insert(objects.end(), rungs.begin(), rungs.end());
    top.Build({{"all"}, {}, "phony", objects, {}, {}, {}, {}});
    top.Default({"all"});
    files[GlobalManifestPath(options.out_dir)] = top.text();
  }
  files[StepsFilePath(options.out_dir)] = StepsFileText(
      graphs, ninja_path, options.jobs, [&](const StepGraph& graph) { return !needed_by_default(graph); });
  return files;
}

std::map<std::string, DryRunFile> DryRunDyndepFiles(const std::vector<StepGraph>& graphs,
                                                    const GlobalManifestOptions& options,
                                                    const std::map<std::string, std::string>& files) {
  std::map<std::string, DryRunFile> dyndeps;
  FragmentOptions paths;
  paths.ninja_cwd = NinjaCwd(options);
  for (const StepGraph& graph : graphs) {
    if (std::optional<LookupDyndep> lookup = LookupDyndepOf(graph, paths)) {
      dyndeps[lookup->path] = {lookup->miss, {lookup->hit}};
    }
  }
  auto plan = files.find(LadderDyndepPlanPath(LadderDir(options.out_dir)));
  if (plan != files.end()) {
    dyndeps[LadderDyndepPath(LadderDir(options.out_dir))] = {
        LadderDyndepText(ParseLadderDyndepPlan(plan->second), [](const std::string&) { return false; }),
        {},
        /*keeps_any=*/true};
  }
  return dyndeps;
}

bool HistoryHasStepTimes(const std::vector<StepGraph>& graphs, const GlobalManifestOptions& options) {
  const std::string ninja_cwd = NinjaCwd(options);
  return std::any_of(graphs.begin(), graphs.end(), [&](const StepGraph& graph) {
    return std::any_of(graph.steps.begin(), graph.steps.end(), [&](const GraphStep& step) {
      return std::any_of(step.after.begin(), step.after.end(), [&](size_t before) {
        const std::vector<std::string>& outputs = graph.steps[before].outputs;
        return !outputs.empty() && options.history.contains(NinjaPath(graph, ninja_cwd, outputs.front()));
      });
    });
  });
}

}  // namespace fastcuda

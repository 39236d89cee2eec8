#include "src/graph/kept_intermediates.h"

#include <algorithm>
#include <set>

#include "src/graph/whole_call_cache.h"

namespace fastcuda {

KeptFiles KeptFilesOf(const StepGraph& graph) {
  KeptFiles kept;
  std::set<std::string> finals;
  for (const std::string& output : graph.final_outputs) finals.insert(ResolvePath(graph.cwd, output));
  std::set<std::string> intermediates;
  for (size_t i = 0; i < graph.steps.size(); ++i) {
    const GraphStep& step = graph.steps[i];
    bool writes_depfile = step.kind == StepKind::kFilterDependencies;
    for (const std::string& output : step.outputs) {
      std::string path = ResolvePath(graph.cwd, output);
      // A lookup's dyndep file stays: its result file goes, so the lookup
      // writes it anew before any step reads it, and a dry run (which runs
      // no lookup) still finds one to load.
      if (output == step.cache.dyndep) continue;
      if (!finals.count(path)) intermediates.insert(path);
      else if (!writes_depfile) kept.objects.push_back(path);
    }
    if (step.outputs.empty()) intermediates.insert(ResolvePath(graph.cwd, StampPath(graph, i)));
    for (const std::string& depfile : {step.depfile, step.kept_depfile}) {
      if (!depfile.empty()) intermediates.insert(ResolvePath(graph.cwd, depfile));
    }
  }
  kept.intermediates.assign(intermediates.begin(), intermediates.end());
  return kept;
}

std::vector<std::string> OrphanedIntermediates(const std::vector<KeptFiles>& tus, const FileSystem& fs,
                                               const std::vector<std::string>& made_elsewhere) {
  const std::set<std::string> elsewhere(made_elsewhere.begin(), made_elsewhere.end());
  auto orphaned = [&](const std::string& object) {
    return !fs.IsFile(object) || elsewhere.count(object) > 0;
  };
  std::vector<std::string> intermediates;
  for (const KeptFiles& tu : tus) {
    if (std::none_of(tu.objects.begin(), tu.objects.end(), orphaned)) continue;
    for (const std::string& path : tu.intermediates) {
      if (fs.IsFile(path)) intermediates.push_back(path);
    }
  }
  return intermediates;
}

std::vector<std::string> IntermediatesLeftBehind(const std::vector<KeptFiles>& before,
                                                 const std::vector<KeptFiles>& now) {
  std::set<std::string> named;
  for (const KeptFiles& tu : now) named.insert(tu.intermediates.begin(), tu.intermediates.end());
  std::vector<std::string> left;
  for (const KeptFiles& tu : before) {
    for (const std::string& path : tu.intermediates) {
      if (!named.count(path)) left.push_back(path);
    }
  }
  return left;
}

std::string KeptHeadersSource(const StepGraph& graph) {
  if (CacheLookupOf(graph)) return "";
  for (const GraphStep& step : graph.steps) {
    if (step.kept_depfile.empty() || !IsPreprocess(step.kind) || step.inputs.empty()) continue;
    const std::string& source = step.inputs.front();
    return std::find(step.argv.begin(), step.argv.end(), source) != step.argv.end() ? source : "";
  }
  return "";
}

}  // namespace fastcuda

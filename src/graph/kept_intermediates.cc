#include "src/graph/kept_intermediates.h"

#include <algorithm>
#include <functional>
#include <set>

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

namespace {

/// The intermediates that exist of every TU one of whose objects `goes`.
std::vector<std::string> IntermediatesOfTusWhere(const std::vector<KeptFiles>& tus,
                                                 const std::function<bool(const std::string&)>& goes,
                                                 const FileSystem& fs) {
  std::vector<std::string> intermediates;
  for (const KeptFiles& tu : tus) {
    if (std::none_of(tu.objects.begin(), tu.objects.end(), goes)) continue;
    for (const std::string& path : tu.intermediates) {
      if (fs.IsFile(path)) intermediates.push_back(path);
    }
  }
  return intermediates;
}

}  // namespace

std::vector<std::string> OrphanedIntermediates(const std::vector<KeptFiles>& tus, const FileSystem& fs) {
  return IntermediatesOfTusWhere(
      tus, [&](const std::string& object) { return !fs.IsFile(object); }, fs);
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

std::vector<std::string> IntermediatesOfObjects(const std::vector<KeptFiles>& tus,
                                                const std::vector<std::string>& objects,
                                                const FileSystem& fs) {
  std::set<std::string> made_elsewhere(objects.begin(), objects.end());
  return IntermediatesOfTusWhere(
      tus, [&](const std::string& object) { return made_elsewhere.count(object) > 0; }, fs);
}

}  // namespace fastcuda

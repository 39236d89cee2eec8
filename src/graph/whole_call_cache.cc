#include "src/graph/whole_call_cache.h"

#include <algorithm>
#include <filesystem>

#include "src/nvcc/nvcc_options.h"
#include "src/nvcc/step.h"

namespace fastcuda {
namespace {

/// Sets the value of flag `names` in `argv` (`-o X`, `--output-file X`, `--output-file=X`).
void ReplaceFlagValue(std::vector<std::string>& argv, std::initializer_list<std::string_view> names,
                      const std::string& value) {
  for (size_t i = 1; i < argv.size(); ++i) {
    for (std::string_view name : names) {
      std::string_view word = argv[i];
      if (word == name && i + 1 < argv.size()) {
        argv[++i] = value;
        break;
      }
      if (word.starts_with(name) && word.size() > name.size() && word[name.size()] == '=') {
        argv[i] = std::string(name) + "=" + value;
        break;
      }
    }
  }
}

/// Puts `step`, which waits for nothing, first (MoveStep cannot refuse that).
void PutFirst(StepGraph& graph, GraphStep step) {
  graph.steps.push_back(std::move(step));
  static_cast<void>(MoveStep(graph, graph.steps.size() - 1, 0));
}

}  // namespace

bool ReadsCacheHit(const FileSystem& fs, const std::string& result) { return fs.Read(result) == "hit"; }

bool IsWholeCallCache(const std::vector<std::string>& launcher) {
  return !launcher.empty() && std::filesystem::path(launcher.front()).filename() == "ccache";
}

std::vector<std::string> WithOutputs(std::vector<std::string> nvcc, const std::string& object,
                                     const std::string& depfile) {
  if (FlagValues(nvcc, {"-MF", "--dependency-output"}).empty()) {
    std::vector<std::string> target = FlagValues(nvcc, {"-o", "--output-file"});
    if (!target.empty()) nvcc.insert(nvcc.end(), {"-MD", "-MT", target.back(), "-MF", depfile});
  }
  ReplaceFlagValue(nvcc, {"-o", "--output-file"}, object);
  ReplaceFlagValue(nvcc, {"-MF", "--dependency-output"}, depfile);
  return nvcc;
}

bool AddWholeCallCache(StepGraph& graph, const std::vector<std::string>& launcher,
                       const std::vector<std::string>& nvcc) {
  if (!IsWholeCallCache(launcher)) return false;
  auto host_preprocess = std::find_if(graph.steps.begin(), graph.steps.end(), [](const GraphStep& step) {
    return step.kind == StepKind::kHostPreprocess;
  });
  // The one final output besides the user's depfile: the object.
  std::vector<size_t> objects;
  for (const std::string& output : graph.final_outputs) {
    std::optional<size_t> writer = StepWriting(graph, output);
    if (writer && graph.steps[*writer].kind != StepKind::kFilterDependencies) objects.push_back(*writer);
  }
  if (host_preprocess == graph.steps.end() || objects.size() != 1 ||
      RunByFastcuda(graph.steps[objects.front()].kind)) {
    return false;
  }
  size_t object_index = objects.front();
  // The headers stored with the object: the user's depfile, else the kept ones.
  auto filter = std::find_if(graph.steps.begin(), graph.steps.end(), [](const GraphStep& step) {
    return step.kind == StepKind::kFilterDependencies;
  });
  std::vector<std::string> store_depfiles;
  if (filter != graph.steps.end()) {
    store_depfiles = {filter->outputs.front()};
  } else {
    for (const GraphStep& step : graph.steps) {
      if (!step.kept_depfile.empty()) store_depfiles.push_back(step.kept_depfile);
    }
  }
  if (store_depfiles.empty()) return false;
  const std::string dir = graph.work_dir + "/cache-";
  GraphStep lookup;
  lookup.kind = StepKind::kCacheLookup;
  lookup.outputs = {dir + "result", dir + "object.o", dir + "dyndep"};
  lookup.cache.dyndep = lookup.outputs[2];
  lookup.depfile = dir + "object.d";
  lookup.kept_depfile = dir + "object.deps";
  // What the command reads besides headers: a changed response file is another call.
  lookup.inputs = host_preprocess->inputs;
  for (const std::string& file : ResponseFiles(nvcc, graph.cwd)) lookup.inputs.push_back(file);
  lookup.argv = launcher;
  std::vector<std::string> asked = WithOutputs(nvcc, lookup.outputs[1], lookup.depfile);
  lookup.argv.insert(lookup.argv.end(), asked.begin(), asked.end());
  lookup.cache.store_depfiles = store_depfiles;  // on a miss, the headers it waits for
  const std::string result = lookup.outputs[0], cached_object = lookup.outputs[1], dyndep = lookup.outputs[2];
  const std::string lookup_depfile = lookup.kept_depfile;
  const bool has_filter = filter != graph.steps.end();
  size_t filter_index = has_filter ? filter - graph.steps.begin() : 0;
  // The store takes the merged depfile along: the object's step waits for it.
  if (has_filter && !WaitForMovingItBefore(graph, &object_index, &filter_index)) return false;
  PutFirst(graph, std::move(lookup));  // every other step one later
  ++object_index;
  ++filter_index;

  for (size_t i = 1; i < graph.steps.size(); ++i) {
    GraphStep& step = graph.steps[i];
    step.after.push_back(0);
    // The fastcuda-run steps are cheap; the depfile merge reads the lookup's headers.
    if (RunByFastcuda(step.kind)) continue;
    step.cache.result = result;
    step.inputs.push_back(result);
  }
  GraphStep& object_step = graph.steps[object_index];
  object_step.cache.hit_object = cached_object;
  object_step.inputs.push_back(cached_object);  // another hit is another object
  object_step.cache.store = launcher;
  std::vector<std::string> store = WithOutputs(nvcc, dir + "store.o", dir + "store.d");
  object_step.cache.store.insert(object_step.cache.store.end(), store.begin(), store.end());
  object_step.cache.store_depfiles = store_depfiles;
  object_step.cache.dyndep = dyndep;
  object_step.cache.on_hit = {cached_object};
  if (has_filter) {
    GraphStep& filter_step = graph.steps[filter_index];
    filter_step.inputs.push_back(lookup_depfile);
    // On a hit the user's depfile is the lookup's headers alone: the kept
    // ones are an earlier miss's, or gone.
    filter_step.cache.result = result;
    filter_step.cache.dyndep = dyndep;
    filter_step.cache.on_hit = {lookup_depfile};
    const std::vector<std::string>& inputs = object_step.inputs;
    if (std::find(inputs.begin(), inputs.end(), store_depfiles.front()) == inputs.end()) {
      object_step.inputs.push_back(store_depfiles.front());
    }
    object_step.cache.on_hit.push_back(store_depfiles.front());
  }
  return true;
}

bool WaitsThroughDyndep(const GraphStep& step) {
  return !step.cache.dyndep.empty() && step.kind != StepKind::kCacheLookup;
}

const GraphStep* CacheLookupOf(const StepGraph& graph) {
  if (graph.steps.empty() || graph.steps.front().kind != StepKind::kCacheLookup) return nullptr;
  return &graph.steps.front();
}

}  // namespace fastcuda

#include "src/graph/stubbed_intermediates.h"

#include <algorithm>

namespace fastcuda {
namespace {

/// Steps whose first output is big text that one step reads once, and that
/// a cheap run writes again: preprocessing, cudafe++, and fatbinary's
/// `.fatbin.c`, which holds the device code as text, several times the
/// cubins' size.
bool WritesBigText(StepKind kind) {
  return kind == StepKind::kHostPreprocess || kind == StepKind::kDevicePreprocess ||
         kind == StepKind::kCudafe || kind == StepKind::kFatbinary;
}

/// Steps that `fastcuda step` runs, which can regenerate what they read.
bool ReadsBigText(StepKind kind) {
  return kind == StepKind::kCudafe || kind == StepKind::kCicc || kind == StepKind::kHostCompile;
}

/// True where `step` reads `path`: an input, or a file its command names
/// that Ninja need not wait for (the early host object's embedding, which
/// may compile the host source again).
bool Reads(const GraphStep& step, const std::string& path) {
  if (std::find(step.inputs.begin(), step.inputs.end(), path) != step.inputs.end()) return true;
  return std::any_of(step.argv.begin(), step.argv.end(),
                     [&](const std::string& word) { return word == path || word.ends_with("=" + path); });
}

}  // namespace

std::vector<StubbedIntermediate> StubbedIntermediates(const StepGraph& graph) {
  std::vector<StubbedIntermediate> stubbed;
  for (size_t i = 0; i < graph.steps.size(); ++i) {
    const GraphStep& producer = graph.steps[i];
    if (!WritesBigText(producer.kind) || producer.outputs.empty()) continue;
    const std::string& path = producer.outputs.front();
    const std::vector<std::string>& finals = graph.final_outputs;
    if (std::find(finals.begin(), finals.end(), path) != finals.end()) continue;
    std::vector<size_t> readers;
    for (size_t j = 0; j < graph.steps.size(); ++j) {
      if (j != i && Reads(graph.steps[j], path)) readers.push_back(j);
    }
    if (readers.size() == 1 && ReadsBigText(graph.steps[readers.front()].kind))
      stubbed.push_back({i, readers.front(), path});
  }
  return stubbed;
}

std::string RecipePath(const std::string& intermediate) { return intermediate + ".recipe"; }

}  // namespace fastcuda

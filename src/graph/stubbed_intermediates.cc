#include "src/graph/stubbed_intermediates.h"

#include <algorithm>

namespace fastcuda {
namespace {

/// Steps whose first output is big text that one step reads once.
bool WritesBigText(StepKind kind) {
  return kind == StepKind::kHostPreprocess || kind == StepKind::kDevicePreprocess ||
         kind == StepKind::kCudafe;
}

/// Steps that `fastcuda step` runs, which can regenerate what they read.
bool ReadsBigText(StepKind kind) {
  return kind == StepKind::kCudafe || kind == StepKind::kCicc || kind == StepKind::kHostCompile;
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
      const std::vector<std::string>& inputs = graph.steps[j].inputs;
      if (std::find(inputs.begin(), inputs.end(), path) != inputs.end()) readers.push_back(j);
    }
    if (readers.size() == 1 && ReadsBigText(graph.steps[readers.front()].kind))
      stubbed.push_back({i, readers.front(), path});
  }
  return stubbed;
}

std::string RecipePath(const std::string& intermediate) { return intermediate + ".recipe"; }

}  // namespace fastcuda

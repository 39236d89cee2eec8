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

/// True for a file nvcc was asked to write.
bool IsFinal(const StepGraph& graph, const std::string& path) {
  const std::vector<std::string>& finals = graph.final_outputs;
  return std::find(finals.begin(), finals.end(), path) != finals.end();
}

/// The steps but `writer` that read `path`.
std::vector<size_t> ReadersOf(const StepGraph& graph, size_t writer, const std::string& path) {
  std::vector<size_t> readers;
  for (size_t j = 0; j < graph.steps.size(); ++j) {
    if (j != writer && Reads(graph.steps[j], path)) readers.push_back(j);
  }
  return readers;
}

}  // namespace

std::vector<StubbedIntermediate> StubbedIntermediates(const StepGraph& graph) {
  std::vector<StubbedIntermediate> stubbed;
  for (size_t i = 0; i < graph.steps.size(); ++i) {
    const GraphStep& producer = graph.steps[i];
    if (!WritesBigText(producer.kind) || producer.outputs.empty()) continue;
    const std::string& path = producer.outputs.front();
    if (IsFinal(graph, path)) continue;
    std::vector<size_t> readers = ReadersOf(graph, i, path);
    if (readers.size() == 1 && ReadsBigText(graph.steps[readers.front()].kind))
      stubbed.push_back({i, readers.front(), path});
  }
  return stubbed;
}

std::vector<std::string> InputsThatMayBeStubs(const StepGraph& graph, size_t index) {
  std::vector<std::string> inputs;
  const std::vector<StubbedIntermediate> stubbed = StubbedIntermediates(graph);
  for (size_t i = 0; i < graph.steps.size(); ++i) {
    const GraphStep& producer = graph.steps[i];
    if (i == index || !WritesBigText(producer.kind) || producer.outputs.empty()) continue;
    const std::string& path = producer.outputs.front();
    bool stubs_it = std::any_of(stubbed.begin(), stubbed.end(), [&](const StubbedIntermediate& one) {
      return one.path == path && one.consumer == index;
    });
    if (!stubs_it && !IsFinal(graph, path) && Reads(graph.steps[index], path)) inputs.push_back(path);
  }
  return inputs;
}

std::vector<UnreadIntermediate> UnreadIntermediates(const StepGraph& graph) {
  std::vector<UnreadIntermediate> unread;
  for (size_t i = 0; i < graph.steps.size(); ++i) {
    if (graph.steps[i].kind != StepKind::kCicc) continue;
    for (const std::string& path : graph.steps[i].outputs) {
      if (!IsFinal(graph, path) && ReadersOf(graph, i, path).empty()) unread.push_back({i, path});
    }
  }
  return unread;
}

}  // namespace fastcuda

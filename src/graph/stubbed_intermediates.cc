#include "src/graph/stubbed_intermediates.h"

#include <algorithm>
#include <utility>

namespace fastcuda {
namespace {

/// The outputs of a step that one step reads once, and that a run costing
/// little beside their reader's writes again: preprocessed text,
/// cudafe++'s host source, fatbinary's `.fatbin.c`, which holds the device
/// code as text, several times the cubins' size, ptxas's cubin (a block of
/// disk, where a light TU's object takes three) and cicc's PTX where ptxas
/// alone reads it: ptxas runs alone only for its own flags, rare enough to
/// pay a cicc then for a block per architecture on every TU. Not
/// cudafe++'s module id, which ties the device code to the host code and
/// which CUB's names make differ from run to run, nor cicc's host stub: a
/// host compile run alone, for a host flag, would run cicc again.
bool IsStubbable(StepKind kind, const std::string& path) {
  switch (kind) {
    case StepKind::kHostPreprocess:
    case StepKind::kDevicePreprocess:
      return path.ends_with(".ii");
    case StepKind::kCudafe:
      return path.ends_with(".cpp");
    case StepKind::kCicc:
      return path.ends_with(".ptx");
    case StepKind::kFatbinary:
      return path.ends_with(".fatbin.c");
    case StepKind::kPtxas:
      return path.ends_with(".cubin");
    default:
      return false;
  }
}

/// Steps that `fastcuda step` runs, which can regenerate what they read.
bool RegeneratesInputs(StepKind kind) {
  return kind == StepKind::kCudafe || kind == StepKind::kCicc || kind == StepKind::kPtxas ||
         kind == StepKind::kHostCompile || kind == StepKind::kFatbinary;
}

/// True where `step` reads `path`: an input, or a file its command names
/// that Ninja need not wait for (the early host object's embedding, which
/// may compile the host source again), but not one it writes.
bool Reads(const GraphStep& step, const std::string& path) {
  if (std::find(step.inputs.begin(), step.inputs.end(), path) != step.inputs.end()) return true;
  if (std::find(step.outputs.begin(), step.outputs.end(), path) != step.outputs.end()) return false;
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

/// Every output of `graph` that IsStubbable and nvcc was not asked for,
/// with the index of the step that writes it.
std::vector<std::pair<size_t, std::string>> StubCandidates(const StepGraph& graph) {
  std::vector<std::pair<size_t, std::string>> candidates;
  for (size_t i = 0; i < graph.steps.size(); ++i) {
    for (const std::string& path : graph.steps[i].outputs) {
      if (IsStubbable(graph.steps[i].kind, path) && !IsFinal(graph, path)) candidates.emplace_back(i, path);
    }
  }
  return candidates;
}

}  // namespace

std::vector<StubbedIntermediate> StubbedIntermediates(const StepGraph& graph) {
  std::vector<StubbedIntermediate> stubbed;
  for (const auto& [producer, path] : StubCandidates(graph)) {
    std::vector<size_t> readers = ReadersOf(graph, producer, path);
    if (readers.size() == 1 && RegeneratesInputs(graph.steps[readers.front()].kind))
      stubbed.push_back({producer, readers.front(), path});
  }
  return stubbed;
}

std::vector<std::string> InputsThatMayBeStubs(const StepGraph& graph, size_t index) {
  std::vector<std::string> inputs;
  const std::vector<StubbedIntermediate> stubbed = StubbedIntermediates(graph);
  for (const auto& candidate : StubCandidates(graph)) {
    // Named apart, not bound: clang 14 captures no structured binding in a lambda.
    const std::string& path = candidate.second;
    if (candidate.first == index || !Reads(graph.steps[index], path)) continue;
    bool stubs_it = std::any_of(stubbed.begin(), stubbed.end(), [&](const StubbedIntermediate& one) {
      return one.path == path && one.consumer == index;
    });
    if (!stubs_it) inputs.push_back(path);
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

#include "src/kept_intermediates.h"

#include <algorithm>
#include <set>

#include "ninja-gen/fragment.h"

namespace fastcuda {
namespace {

/// Tokens separated by NUL; a TU is its object count, its objects, its
/// intermediates and an empty token.
void AppendToken(std::string& text, const std::string& token) {
  text += token;
  text += '\0';
}

}  // namespace

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

std::vector<std::string> OrphanedIntermediates(const std::vector<KeptFiles>& tus, const FileSystem& fs) {
  std::vector<std::string> orphaned;
  for (const KeptFiles& tu : tus) {
    bool object_missing = std::any_of(tu.objects.begin(), tu.objects.end(),
                                      [&](const std::string& object) { return !fs.IsFile(object); });
    if (!object_missing) continue;
    for (const std::string& path : tu.intermediates) {
      if (fs.IsFile(path)) orphaned.push_back(path);
    }
  }
  return orphaned;
}

std::string FormatKeptFiles(const std::vector<KeptFiles>& tus) {
  std::string text;
  for (const KeptFiles& tu : tus) {
    if (tu.intermediates.empty()) continue;
    AppendToken(text, std::to_string(tu.objects.size()));
    for (const std::string& object : tu.objects) AppendToken(text, object);
    for (const std::string& path : tu.intermediates) AppendToken(text, path);
    AppendToken(text, "");
  }
  return text;
}

std::vector<KeptFiles> ParseKeptFiles(std::string_view text) {
  std::vector<std::string_view> tokens;
  for (size_t start = 0, end; start < text.size(); start = end + 1) {
    end = text.find('\0', start);
    if (end == std::string_view::npos) break;  // a torn last token: ignore it
    tokens.push_back(text.substr(start, end - start));
  }
  std::vector<KeptFiles> tus;
  for (size_t i = 0; i < tokens.size();) {
    KeptFiles tu;
    size_t objects = 0;
    for (char digit : tokens[i++]) {
      if (digit < '0' || digit > '9') return tus;  // not this format: keep what was read
      objects = objects * 10 + (digit - '0');
    }
    for (; i < tokens.size() && !tokens[i].empty(); ++i) {
      (tu.objects.size() < objects ? tu.objects : tu.intermediates).emplace_back(tokens[i]);
    }
    if (i == tokens.size()) break;  // torn: the TU's end is missing
    ++i;
    tus.push_back(std::move(tu));
  }
  return tus;
}

std::string KeptFilesPath(const std::string& graph_dir) { return graph_dir + "/kept-files"; }

}  // namespace fastcuda

#include "ninja-gen/manifest.h"

#include <algorithm>
#include <unordered_map>
#include <unordered_set>
#include <utility>

#include "ninja-gen/manifest_path.h"

namespace fastcuda {
namespace {

/// The 1-based line and column of byte `offset` of `text`.
std::pair<int, int> LineAndColumn(std::string_view text, size_t offset) {
  offset = std::min(offset, text.size());
  size_t newline = offset == 0 ? std::string_view::npos : text.rfind('\n', offset - 1);
  size_t line_start = newline == std::string_view::npos ? 0 : newline + 1;
  int line = 1 + static_cast<int>(std::count(text.begin(), text.begin() + line_start, '\n'));
  return {line, static_cast<int>(offset - line_start) + 1};
}

std::string JoinPaths(const std::vector<std::string>& paths, char separator, EdgePathQuoting quoting) {
  std::string joined;
  for (const std::string& path : paths) {
    if (!joined.empty()) joined += separator;
    joined += quoting == EdgePathQuoting::kShellEscaped ? ShellEscapeManifestPath(path) : path;
  }
  return joined;
}

/// Ninja's EdgeEnv: one evaluation of an edge's variable, with the rule
/// bindings it is inside of, to find cycles.
class EdgeEvaluation {
 public:
  EdgeEvaluation(const Manifest& manifest, const ManifestEdge& edge, EdgePathQuoting quoting)
      : manifest_(manifest), edge_(edge), quoting_(quoting) {}

  std::string Lookup(const std::string& name) {
    if (name == "in" || name == "in_newline") {
      return JoinPaths(edge_.inputs, name == "in" ? ' ' : '\n', quoting_);
    }
    if (name == "out") return JoinPaths(edge_.outputs, ' ', quoting_);
    const ManifestScope& scope = manifest_.scopes[edge_.scope];
    // An edge without bindings shares its scope's environment in Ninja, so
    // then the scope's own variables come before the rule's bindings.
    const auto& first = edge_.bindings.empty() ? scope.variables : edge_.bindings;
    if (auto it = first.find(name); it != first.end()) return it->second;
    const auto& rule_bindings = manifest_.rules[edge_.rule].bindings;
    if (auto it = rule_bindings.find(name); it != rule_bindings.end())
      return EvaluateRuleBinding(name, it->second);
    std::optional<size_t> fallback = edge_.bindings.empty() ? scope.parent : edge_.scope;
    return fallback ? LookupScopeVariable(manifest_, *fallback, name) : "";
  }

 private:
  std::string EvaluateRuleBinding(const std::string& name, const ManifestValue& value) {
    if (std::find(active_.begin(), active_.end(), name) != active_.end()) {
      std::string cycle;
      for (auto it = std::find(active_.begin(), active_.end(), name); it != active_.end(); ++it)
        cycle += *it + " -> ";
      const ManifestFile& file = manifest_.files[edge_.span.file];
      throw ManifestError(file.path, file.text, edge_.span.begin, "cycle in rule variables: " + cycle + name);
    }
    active_.push_back(name);
    std::string result = value.Evaluate([this](const std::string& inner) { return Lookup(inner); });
    active_.pop_back();
    return result;
  }

  const Manifest& manifest_;
  const ManifestEdge& edge_;
  EdgePathQuoting quoting_;
  std::vector<std::string> active_;
};

}  // namespace

ManifestError::ManifestError(const std::string& file, std::string_view text, size_t offset,
                             const std::string& message)
    : ManifestError(file, LineAndColumn(text, offset).first, LineAndColumn(text, offset).second, message) {}

ManifestError::ManifestError(const std::string& file, int line, int column, const std::string& message)
    : std::runtime_error(file + ":" + std::to_string(line) + ":" + std::to_string(column) + ": " + message),
      file_(file),
      line_(line),
      column_(column),
      message_(message) {}

void ManifestValue::AddText(std::string_view text) {
  if (text.empty()) return;
  if (pieces_.empty() || pieces_.back().is_variable) pieces_.push_back({std::string(text), false});
  else pieces_.back().text.append(text);
}

void ManifestValue::AddVariable(std::string_view name) { pieces_.push_back({std::string(name), true}); }

std::string ManifestValue::Evaluate(const std::function<std::string(const std::string&)>& lookup) const {
  std::string result;
  for (const Piece& piece : pieces_) result += piece.is_variable ? lookup(piece.text) : piece.text;
  return result;
}

std::vector<std::string> RootTargets(const Manifest& manifest) {
  std::unordered_set<std::string> read;
  for (const ManifestEdge& edge : manifest.edges) {
    for (const auto* paths : {&edge.inputs, &edge.implicit_inputs, &edge.order_only_inputs}) {
      read.insert(paths->begin(), paths->end());
    }
  }
  std::vector<std::string> roots;
  for (const ManifestEdge& edge : manifest.edges) {
    for (const auto* paths : {&edge.outputs, &edge.implicit_outputs}) {
      for (const std::string& path : *paths) {
        if (!read.contains(path)) roots.push_back(path);
      }
    }
  }
  return roots;
}

std::vector<std::string> DefaultTargets(const Manifest& manifest) {
  if (manifest.defaults.empty()) return RootTargets(manifest);
  std::vector<std::string> targets;
  for (const ManifestDefault& statement : manifest.defaults) {
    targets.insert(targets.end(), statement.targets.begin(), statement.targets.end());
  }
  return targets;
}

std::unordered_set<std::string> Needed(const Manifest& manifest, const std::vector<std::string>& targets) {
  std::unordered_map<std::string, const ManifestEdge*> maker;
  for (const ManifestEdge& edge : manifest.edges) {
    for (const auto* paths : {&edge.outputs, &edge.implicit_outputs}) {
      for (const std::string& path : *paths) maker.emplace(path, &edge);
    }
  }
  std::unordered_set<std::string> needed;
  std::vector<std::string> pending = targets;
  while (!pending.empty()) {
    std::string path = std::move(pending.back());
    pending.pop_back();
    if (!needed.insert(path).second) continue;
    auto edge = maker.find(path);
    if (edge == maker.end()) continue;
    for (const auto* paths :
         {&edge->second->inputs, &edge->second->implicit_inputs, &edge->second->order_only_inputs}) {
      pending.insert(pending.end(), paths->begin(), paths->end());
    }
  }
  return needed;
}

std::string LookupScopeVariable(const Manifest& manifest, size_t scope, const std::string& name) {
  for (std::optional<size_t> at = scope; at; at = manifest.scopes[*at].parent) {
    const auto& variables = manifest.scopes[*at].variables;
    if (auto it = variables.find(name); it != variables.end()) return it->second;
  }
  return "";
}

std::string EvaluateEdgeVariable(const Manifest& manifest, const ManifestEdge& edge, const std::string& name,
                                 EdgePathQuoting quoting) {
  return EdgeEvaluation(manifest, edge, quoting).Lookup(name);
}

}  // namespace fastcuda

#include "ninja-gen/ninja_writer.h"

namespace fastcuda {
namespace {

std::string Escape(std::string_view text, bool is_path) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    if (c == '$' || c == '\n' || (is_path && (c == ' ' || c == ':'))) out += '$';
    out += c;
  }
  return out;
}

}  // namespace

std::string EscapeNinjaPath(std::string_view path) {
  if (path.find_first_of(std::string_view("|\0", 2)) != std::string_view::npos) {
    throw UnnameablePath("Ninja cannot name a file whose path holds '|': " + std::string(path));
  }
  return Escape(path, true);
}

std::string EscapeNinjaValue(std::string_view value) { return Escape(value, false); }

void NinjaWriter::Comment(std::string_view text) { text_.append("# ").append(text).append("\n"); }

void NinjaWriter::Variable(std::string_view name, std::string_view value) {
  text_.append(name).append(" = ").append(EscapeNinjaValue(value)).append("\n");
}

void NinjaWriter::PathVariable(const std::string& name, const std::string& path) {
  Variable(name, path);
  NamePathsThrough(name, path);
}

void NinjaWriter::NamePathsThrough(const std::string& name, const std::string& path) {
  std::erase_if(path_variables_, [&](const auto& bound) { return bound.first == name; });
  path_variables_.emplace_back(name, path);
}

void NinjaWriter::Pool(std::string_view name, int depth) {
  text_.append("pool ").append(name).append("\n  depth = ").append(std::to_string(depth));
  text_.append("\n");
}

void NinjaWriter::Rule(const NinjaRule& rule) {
  text_.append("rule ").append(rule.name).append("\n");
  for (const auto& [name, value] : rule.variables) {
    text_.append("  ").append(name).append(" = ").append(value).append("\n");
  }
}

void NinjaWriter::PathList(std::string_view separator, const std::vector<std::string>& paths) {
  if (paths.empty()) return;
  text_.append(separator);
  for (const std::string& path : paths) {
    std::string escaped = EscapeNinjaPath(path);  // throws for a path Ninja cannot name, abbreviated or not
    size_t longest = 0;  // the variable of the longest prefix names it: the shortest text
    for (const auto& [name, prefix] : path_variables_) {
      bool under = path.size() > prefix.size() && path.starts_with(prefix) && path[prefix.size()] == '/';
      if ((path == prefix || under) && prefix.size() > longest) {
        longest = prefix.size();
        escaped = "${" + name + "}" + EscapeNinjaPath(std::string_view(path).substr(prefix.size()));
      }
    }
    text_.append(" ").append(escaped);
  }
}

void NinjaWriter::Build(const NinjaBuild& build) {
  text_.append("build");
  PathList("", build.outputs);
  PathList(" |", build.implicit_outputs);
  text_.append(": ").append(build.rule);
  PathList("", build.inputs);
  PathList(" |", build.implicit_inputs);
  PathList(" ||", build.order_only_inputs);
  text_.append("\n");
  for (const auto& [name, value] : build.variables) {
    text_.append("  ").append(name).append(" = ").append(EscapeNinjaValue(value)).append("\n");
  }
  for (const auto& [name, value] : build.raw_variables) {
    text_.append("  ").append(name).append(" = ").append(value).append("\n");
  }
}

void NinjaWriter::Default(const std::vector<std::string>& targets) {
  text_.append("default");
  PathList("", targets);
  text_.append("\n");
}

}  // namespace fastcuda

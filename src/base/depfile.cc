#include "src/base/depfile.h"

#include <re2/re2.h>

#include <algorithm>
#include <charconv>
#include <set>
#include <stdexcept>

namespace fastcuda {
namespace {

/// One word of a depfile (backslash escapes kept) and the separator after it.
const RE2& DepfileWord() {
  static const RE2 re(
      R"re((?:\s|\\\r?\n)*((?:\\[^\r\n]|\$\$|[^\s\\:$]|:[^\s])+)[ \t]*(:?)(?:[ \t]|\\\r?\n)*(\r?\n)?)re",
      RE2::Latin1);
  return re;
}

std::string Unescape(std::string_view word) {
  std::string out;
  for (size_t i = 0; i < word.size(); ++i) {
    if (word[i] == '\\' && i + 1 < word.size() &&
        (word[i + 1] == ' ' || word[i + 1] == '#' || word[i + 1] == '\\')) {
      out += word[++i];
    } else if (word[i] == '$' && i + 1 < word.size() && word[i + 1] == '$') {
      out += word[++i];
    } else {
      out += word[i];
    }
  }
  return out;
}

std::string Escape(std::string_view path) {
  std::string out;
  for (char c : path) {
    if (c == ' ' || c == '#' || c == '\\') out += '\\';
    if (c == '$') out += '$';
    out += c;
  }
  return out;
}

constexpr std::string_view kCompactHeader = "# fastcuda compact depfile\n";

/// FormatCompactDepfile's text, after its header.
Depfile ParseCompactDepfile(std::string_view text) {
  Depfile depfile;
  std::string previous;
  while (!text.empty()) {
    size_t end = std::min(text.find('\n'), text.size());
    std::string_view line = text.substr(0, end);
    text.remove_prefix(std::min(end + 1, text.size()));
    if (line.starts_with(": ")) {
      depfile.targets.emplace_back(line.substr(2));
      continue;
    }
    size_t shared = 0;
    auto [rest, error] = std::from_chars(line.data(), line.data() + line.size(), shared);
    if (error != std::errc() || rest == line.data() + line.size() || *rest != ' ' || shared > previous.size())
      throw std::runtime_error("a compact depfile's line is not COUNT REST: " + std::string(line));
    previous = previous.substr(0, shared) + std::string(rest + 1, line.data() + line.size());
    depfile.dependencies.push_back(previous);
  }
  return depfile;
}

}  // namespace

std::string FormatCompactDepfile(const Depfile& depfile) {
  auto has_newline = [](const std::string& path) { return path.find('\n') != std::string::npos; };
  if (std::any_of(depfile.targets.begin(), depfile.targets.end(), has_newline) ||
      std::any_of(depfile.dependencies.begin(), depfile.dependencies.end(), has_newline)) {
    return FormatDepfile(depfile);
  }
  std::string text(kCompactHeader);
  for (const std::string& target : depfile.targets) text += ": " + target + "\n";
  std::vector<std::string> dependencies = depfile.dependencies;
  if (!dependencies.empty()) std::sort(dependencies.begin() + 1, dependencies.end());
  std::string_view previous;
  for (const std::string& dependency : dependencies) {
    auto [end, _] = std::mismatch(previous.begin(), previous.end(), dependency.begin(), dependency.end());
    size_t shared = static_cast<size_t>(end - previous.begin());
    text += std::to_string(shared) + " " + dependency.substr(shared) + "\n";
    previous = dependency;
  }
  return text;
}

Depfile ParseDepfile(std::string_view text_view) {
  if (text_view.starts_with(kCompactHeader))
    return ParseCompactDepfile(text_view.substr(kCompactHeader.size()));
  re2::StringPiece text(text_view.data(), text_view.size());
  Depfile depfile;
  bool in_targets = true;
  bool first_rule = true;
  std::string word, colon, newline;
  while (RE2::Consume(&text, DepfileWord(), &word, &colon, &newline)) {
    if (in_targets) {
      if (first_rule) depfile.targets.push_back(Unescape(word));
      if (!colon.empty()) in_targets = false;
    } else if (first_rule) {
      depfile.dependencies.push_back(Unescape(word));
    }
    if (!newline.empty() && !in_targets) {
      // A rule ends at an unescaped newline; later rules are -MP's phony targets.
      first_rule = false;
      in_targets = true;
    }
  }
  return depfile;
}

std::string FormatDepfile(const Depfile& depfile, bool phony_targets) {
  std::string text;
  for (const std::string& target : depfile.targets) {
    if (!text.empty()) text += ' ';
    text += Escape(target);
  }
  text += " :";
  for (const std::string& dependency : depfile.dependencies) {
    text += (&dependency == &depfile.dependencies.front() ? " " : " \\\n    ");
    text += Escape(dependency);
  }
  text += "\n";
  if (!phony_targets) return text;
  for (size_t i = 1; i < depfile.dependencies.size(); ++i) {
    text += '\n';
    text += Escape(depfile.dependencies[i]);
    text += ":\n";
  }
  return text;
}

std::vector<std::string> UnionOfDependencies(const std::vector<Depfile>& parts) {
  std::vector<std::string> all;
  std::set<std::string> seen;
  for (const Depfile& part : parts) {
    for (const std::string& dependency : part.dependencies) {
      if (seen.insert(dependency).second) all.push_back(dependency);
    }
  }
  return all;
}

std::vector<std::string> DependenciesOfDepfiles(const std::vector<std::string>& paths, const std::string& cwd,
                                                const FileSystem& fs) {
  std::vector<Depfile> parts;
  for (const std::string& path : paths)
    parts.push_back(ParseDepfile(fs.Read(ResolvePath(cwd, path)).value_or("")));
  return UnionOfDependencies(parts);
}

}  // namespace fastcuda

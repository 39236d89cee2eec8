#include "src/base/depfile.h"

#include <re2/re2.h>

#include <algorithm>
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

/// How many paths back FormatCompactDepfile looks for the one that shares
/// the most with the next: headers of one directory come close together.
constexpr size_t kCompactWindow = 64;

/// FormatCompactDepfile's text, after its header.
Depfile ParseCompactDepfile(std::string_view text) {
  static const RE2 line_re("(\\d+) (\\d+) ([^\\n]*)\\n", RE2::Latin1);  // paths are bytes
  Depfile depfile;
  re2::StringPiece rest(text.data(), text.size());
  std::string target, tail;
  size_t back = 0, shared = 0;
  while (!rest.empty()) {
    if (rest.starts_with(": ")) {
      size_t end = std::min(rest.find('\n'), rest.size());
      depfile.targets.emplace_back(rest.substr(2, end - 2));
      rest.remove_prefix(std::min(end + 1, rest.size()));
      continue;
    }
    std::vector<std::string>& paths = depfile.dependencies;
    if (!RE2::Consume(&rest, line_re, &back, &shared, &tail) || back > paths.size() ||
        shared > (back == 0 ? 0 : paths[paths.size() - back].size())) {
      throw std::runtime_error("a compact depfile's line is not BACK SHARED REST");
    }
    paths.push_back((back == 0 ? std::string() : paths[paths.size() - back].substr(0, shared)) + tail);
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
  const std::vector<std::string>& paths = depfile.dependencies;
  for (size_t i = 0; i < paths.size(); ++i) {
    size_t best_back = 0, best_shared = 0;
    for (size_t back = 1; back <= std::min(i, kCompactWindow); ++back) {
      const std::string& earlier = paths[i - back];
      auto [end, _] = std::mismatch(earlier.begin(), earlier.end(), paths[i].begin(), paths[i].end());
      if (size_t shared = static_cast<size_t>(end - earlier.begin()); shared > best_shared) {
        best_back = back;
        best_shared = shared;
      }
    }
    text += std::to_string(best_back) + " " + std::to_string(best_shared) + " " +
            paths[i].substr(best_shared) + "\n";
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

}  // namespace fastcuda

#include "src/base/depfile.h"

#include <re2/re2.h>

#include <set>

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

}  // namespace

Depfile ParseDepfile(std::string_view text_view) {
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

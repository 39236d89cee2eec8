#include "src/base/shell_words.h"

#include <re2/re2.h>

namespace fastcuda {
namespace {

/// A maximal run of word characters, quoted strings and escapes.
const RE2& WordPattern() {
  static const RE2 re(R"re(\s*((?:[^\s"'\\]|\\.|"(?:[^"\\]|\\.)*"|'[^']*')+)\s*)re", RE2::Latin1);
  return re;
}

/// One piece of a word: a double-quoted string, a single-quoted string, an
/// escaped character, a variable, or plain text.
const RE2& WordPiecePattern() {
  static const RE2 re(
      R"re("((?:[^"\\]|\\.)*)"|'([^']*)'|\\(.)|\$\{([A-Za-z_][A-Za-z0-9_]*)\}|\$([A-Za-z_][A-Za-z0-9_]*)|([^"'\\$]+|\$))re",
      RE2::Latin1);
  return re;
}

/// One piece inside double quotes: an escape the shell honours there, a
/// variable, or literal text (other backslashes stay literal).
const RE2& DoubleQuotedPiecePattern() {
  static const RE2 re(
      R"re(\\([\\"$`])|\$\{([A-Za-z_][A-Za-z0-9_]*)\}|\$([A-Za-z_][A-Za-z0-9_]*)|(\\|[^\\$]+|\$))re",
      RE2::Latin1);
  return re;
}

/// An unquoted redirection operator, with or without its file attached.
const RE2& RedirectionPattern() {
  static const RE2 re(R"re(([12]?)>(.*))re", RE2::Latin1);
  return re;
}

std::string Expand(const VariableLookup* lookup, const std::string& name) {
  if (!lookup) return "$" + name;
  return (*lookup)(name).value_or("");
}

std::string UnquoteDoubleQuoted(std::string_view quoted, const VariableLookup* lookup) {
  re2::StringPiece text(quoted.data(), quoted.size());
  std::string out;
  std::string escaped, braced, plain_var, literal;
  while (!text.empty()) {
    escaped.clear(), braced.clear(), plain_var.clear(), literal.clear();
    if (!RE2::Consume(&text, DoubleQuotedPiecePattern(), &escaped, &braced, &plain_var, &literal)) {
      throw ShellSyntaxError("cannot read quoted text: " + text.as_string());
    }
    if (!escaped.empty()) out += escaped;
    else if (!braced.empty()) out += Expand(lookup, braced);
    else if (!plain_var.empty()) out += Expand(lookup, plain_var);
    else out += literal;
  }
  return out;
}

/// Removes quotes and escapes from one raw word; expands variables when
/// `lookup` is given.
std::string Unquote(std::string_view word, const VariableLookup* lookup) {
  re2::StringPiece raw(word.data(), word.size());
  std::string out;
  std::string dquoted, squoted, escaped, braced, plain_var, literal;
  while (!raw.empty()) {
    for (auto* s : {&dquoted, &squoted, &escaped, &braced, &plain_var, &literal}) s->clear();
    char first = raw.empty() ? '\0' : raw[0];
    if (!RE2::Consume(&raw, WordPiecePattern(), &dquoted, &squoted, &escaped, &braced, &plain_var,
                      &literal)) {
      throw ShellSyntaxError("cannot read shell word: " + raw.as_string());
    }
    if (first == '"') out += UnquoteDoubleQuoted(dquoted, lookup);
    else if (first == '\'') out += squoted;
    else if (first == '\\') out += escaped;
    else if (!braced.empty()) out += Expand(lookup, braced);
    else if (!plain_var.empty()) out += Expand(lookup, plain_var);
    else out += literal;
  }
  return out;
}

/// Splits text into raw (still quoted) words.
std::vector<std::string> RawWords(std::string_view line) {
  re2::StringPiece text(line.data(), line.size());
  std::vector<std::string> raw;
  std::string word;
  while (RE2::Consume(&text, WordPattern(), &word)) raw.push_back(word);
  if (std::string_view(text.data(), text.size()).find_first_not_of(" \t\r\n") != std::string_view::npos) {
    throw ShellSyntaxError("unterminated quote in: " + text.as_string());
  }
  return raw;
}

}  // namespace

VariableLookup LookupIn(const std::map<std::string, std::string>& environment) {
  return [&environment](std::string_view name) -> std::optional<std::string> {
    auto found = environment.find(std::string(name));
    if (found == environment.end()) return std::nullopt;
    return found->second;
  };
}

ShellCommand SplitShellCommand(std::string_view line, const VariableLookup& lookup) {
  ShellCommand command;
  std::vector<std::string> raw = RawWords(line);
  for (size_t i = 0; i < raw.size(); ++i) {
    std::string fd, target;
    if (RE2::FullMatch(raw[i], RedirectionPattern(), &fd, &target)) {
      if (target.empty()) {
        if (i + 1 == raw.size()) throw ShellSyntaxError("redirection without a file");
        target = raw[++i];
      }
      command.redirections.push_back({fd == "2" ? 2 : 1, Unquote(target, &lookup)});
      continue;
    }
    command.words.push_back(Unquote(raw[i], &lookup));
  }
  return command;
}

std::vector<std::string> SplitShellWords(std::string_view text) {
  std::vector<std::string> words;
  for (const std::string& raw : RawWords(text)) words.push_back(Unquote(raw, nullptr));
  return words;
}

bool HasShellSyntax(std::string_view line) {
  enum class Quoting { kNone, kSingle, kDouble } quoting = Quoting::kNone;
  for (size_t i = 0; i < line.size(); ++i) {
    char c = line[i];
    if (quoting == Quoting::kSingle) {
      if (c == '\'') quoting = Quoting::kNone;
    } else if (c == '\\') {
      ++i;  // the next character is literal
    } else if (quoting == Quoting::kDouble) {
      if (c == '"') quoting = Quoting::kNone;
      else if (c == '$' || c == '`') return true;
    } else if (c == '\'') {
      quoting = Quoting::kSingle;
    } else if (c == '"') {
      quoting = Quoting::kDouble;
    } else if (std::string_view(";&|<>()`$\n").find(c) != std::string_view::npos) {
      return true;
    }
  }
  return false;
}

std::string QuoteShellWord(std::string_view word) {
  static const RE2 safe(R"re([A-Za-z0-9_@%+=:,./\-]+)re", RE2::Latin1);
  if (RE2::FullMatch(word, safe)) return std::string(word);
  std::string quoted = "'";
  for (char c : word) {
    if (c == '\'') quoted += "'\\''";
    else quoted += c;
  }
  return quoted + "'";
}

std::string JoinShellWords(const std::vector<std::string>& words) {
  std::string line;
  for (const std::string& word : words) {
    if (!line.empty()) line += ' ';
    line += QuoteShellWord(word);
  }
  return line;
}

}  // namespace fastcuda

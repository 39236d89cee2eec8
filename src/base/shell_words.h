// Splitting and quoting of POSIX shell words, the syntax nvcc uses to print
// its sub-commands and the syntax Ninja hands to /bin/sh.
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace fastcuda {

/// Thrown when text is not a sequence of well-formed shell words.
struct ShellSyntaxError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

/// Looks up a variable for `$NAME` expansion; nullopt if it is unset.
using VariableLookup = std::function<std::optional<std::string>(std::string_view)>;

/// Looks variables up in `environment`, which must outlive the lookup.
VariableLookup LookupIn(const std::map<std::string, std::string>& environment);

/// A redirection of a command's standard output (fd 1) or error (fd 2).
struct Redirection {
  int fd = 1;
  std::string file;
};

/// One command line split into words, with its redirections taken out.
struct ShellCommand {
  std::vector<std::string> words;
  std::vector<Redirection> redirections;
};

/// Splits `line` into words as /bin/sh would: quotes, backslashes, and `$NAME`
/// / `${NAME}` expansion through `lookup` (unset variables expand to nothing).
ShellCommand SplitShellCommand(std::string_view line, const VariableLookup& lookup);

/// Splits text into words without expanding variables or redirections; used
/// for response files and NVCC_*_FLAGS, whose words nvcc splits the same way.
std::vector<std::string> SplitShellWords(std::string_view text);

/// True if /bin/sh would read `line` as more than words that SplitShellWords
/// gives: an unquoted operator (`;&|<>()`) or newline, or a substitution
/// (`$`, a backquote) outside single quotes.
bool HasShellSyntax(std::string_view line);

/// Quotes one word so that /bin/sh reads it back unchanged.
std::string QuoteShellWord(std::string_view word);

/// Quotes every word and joins them with spaces.
std::string JoinShellWords(const std::vector<std::string>& words);

}  // namespace fastcuda

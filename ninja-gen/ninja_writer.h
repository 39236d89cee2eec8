// Writing Ninja manifest syntax: the one place that knows Ninja's escaping.
#pragma once

#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace fastcuda {

/// A path Ninja has no way to name. Its own type, so that the launcher runs
/// nvcc itself for it and for no other bad argument.
struct UnnameablePath : std::invalid_argument {
  using std::invalid_argument::invalid_argument;
};

/// Escapes a path for a `build` line: `$`, space, `:` and newline. Ninja
/// has no escape for `|` in a path (nor for a NUL byte): such a path throws
/// UnnameablePath, and callers fall back to running nvcc itself.
std::string EscapeNinjaPath(std::string_view path);

/// Escapes a variable value (a command, a description): `$` and newline.
std::string EscapeNinjaValue(std::string_view value);

/// A `build` statement.
struct NinjaBuild {
  std::vector<std::string> outputs;
  std::vector<std::string> implicit_outputs;
  std::string rule;
  std::vector<std::string> inputs;
  std::vector<std::string> implicit_inputs;
  std::vector<std::string> order_only_inputs;
  std::vector<std::pair<std::string, std::string>> variables;  ///< values unescaped
  /// Values already in Ninja syntax: they may refer to variables.
  std::vector<std::pair<std::string, std::string>> raw_variables;
};

/// A `rule` statement; variables are written as given (they may refer to
/// edge variables such as `$cmd`).
struct NinjaRule {
  std::string name;
  std::vector<std::pair<std::string, std::string>> variables;
};

/// Accumulates manifest text.
class NinjaWriter {
 public:
  void Comment(std::string_view text);
  void Variable(std::string_view name, std::string_view value);  ///< value unescaped
  /// Variable, and NamePathsThrough it: a TU's work dir, named a dozen
  /// times an edge, would be most of the manifest.
  void PathVariable(const std::string& name, const std::string& path);
  /// From here on this writer names `path` and the paths under it through
  /// the variable `name` (`${name}/rest`), which the manifest binds to it
  /// where this writer's text goes; the longest such path wins.
  void NamePathsThrough(const std::string& name, const std::string& path);
  void Pool(std::string_view name, int depth);
  void Rule(const NinjaRule& rule);
  void Build(const NinjaBuild& build);
  void Default(const std::vector<std::string>& targets);
  /// Appends what another writer wrote (parts written in parallel).
  void Append(const NinjaWriter& other) { text_ += other.text_; }

  const std::string& text() const { return text_; }

 private:
  void PathList(std::string_view separator, const std::vector<std::string>& paths);
  std::string text_;
  std::vector<std::pair<std::string, std::string>> path_variables_;  ///< name, path (PathVariable)
};

}  // namespace fastcuda

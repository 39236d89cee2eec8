// A Ninja manifest as Ninja 1.11-1.13 reads it: every file it is made of,
// with its text, and where each statement came from, so that a writer can cut
// one statement out and copy the rest byte for byte; the scopes, rules,
// pools and edges, with paths evaluated and canonicalized as Ninja does, and
// the rule bindings kept unevaluated, evaluated per edge on demand.
#pragma once

#include <cstddef>
#include <functional>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <unordered_set>
#include <vector>

namespace fastcuda {

/// A manifest Ninja would refuse, with where: `file:line:column: message`
/// (line and column count from 1).
class ManifestError : public std::runtime_error {
 public:
  /// The error at byte `offset` of `text`, the content of `file`.
  ManifestError(const std::string& file, std::string_view text, size_t offset, const std::string& message);
  /// The file as the statement that included it named it.
  const std::string& file() const { return file_; }
  /// From 1.
  int line() const { return line_; }
  /// From 1, in bytes.
  int column() const { return column_; }
  /// What is wrong, without the place.
  const std::string& message() const { return message_; }

 private:
  /// The error at a line and column already found.
  ManifestError(const std::string& file, int line, int column, const std::string& message);
  std::string file_;
  int line_;
  int column_;
  std::string message_;
};

/// A value as written, `$` escapes resolved: literal text and variable
/// references, evaluated when Ninja would evaluate it.
class ManifestValue {
 public:
  /// One run of literal text, or the name of a referenced variable.
  struct Piece {
    std::string text;
    bool is_variable = false;
  };
  /// Appends literal text (joined to the literal text before it).
  void AddText(std::string_view text);
  /// Appends a reference to variable `name`.
  void AddVariable(std::string_view name);
  /// True for a value written as nothing.
  bool empty() const { return pieces_.empty(); }
  /// The value's pieces in order.
  const std::vector<Piece>& pieces() const { return pieces_; }
  /// The text with each reference replaced by `lookup(name)`.
  std::string Evaluate(const std::function<std::string(const std::string&)>& lookup) const;

 private:
  std::vector<Piece> pieces_;
};

/// Where a statement is: bytes [begin, end) of Manifest::files[file].text,
/// from its keyword to the newline ending its last binding line.
struct ManifestSpan {
  size_t file = 0;
  size_t begin = 0;
  size_t end = 0;
};

/// One file the manifest is made of, as the statement naming it named it.
struct ManifestFile {
  std::string path;
  std::string text;
};

/// The variables and rules of the top file or of a `subninja` (whose
/// lookups fall back to its parent's); an `include` adds to its includer's.
struct ManifestScope {
  std::optional<size_t> parent;                  ///< index into Manifest::scopes
  std::map<std::string, std::string> variables;  ///< the last value assigned
  std::map<std::string, size_t> rules;           ///< name -> index into Manifest::rules
};

/// A `rule`; Ninja evaluates its bindings per edge, at the time it asks.
struct ManifestRule {
  std::string name;
  /// As Ninja keeps them: `command`, `rspfile` and `rspfile_content` always
  /// bound (empty if unwritten), so a scope's variables of those names never
  /// reach an edge through its rule.
  std::map<std::string, ManifestValue> bindings;
  std::optional<ManifestSpan> span;  ///< none for the built-in `phony`
};

/// A `pool` statement.
struct ManifestPool {
  std::string name;
  int depth = 0;
  ManifestSpan span;
};

/// A top-level `name = value` line, evaluated when read.
struct ManifestAssignment {
  std::string name;
  std::string value;
  size_t scope = 0;
  ManifestSpan span;
};

/// A `build` statement. Paths are evaluated and canonicalized; bindings are
/// evaluated (in the enclosing scope, when read).
struct ManifestEdge {
  size_t rule = 0;   ///< index into Manifest::rules
  size_t scope = 0;  ///< index into Manifest::scopes
  std::vector<std::string> outputs;
  std::vector<std::string> implicit_outputs;
  std::vector<std::string> inputs;
  std::vector<std::string> implicit_inputs;
  std::vector<std::string> order_only_inputs;
  std::vector<std::string> validations;
  std::map<std::string, std::string> bindings;
  ManifestSpan span;
};

/// An `include` (same scope) or `subninja` (a child scope) statement.
struct ManifestInclude {
  std::string path;  ///< as evaluated; Ninja opens it relative to where it runs
  bool subninja = false;
  size_t file = 0;  ///< index into Manifest::files
  ManifestSpan span;
};

/// A `default` statement.
struct ManifestDefault {
  std::vector<std::string> targets;  ///< canonical
  ManifestSpan span;
};

/// Manifest::rules' index of Ninja's built-in `phony` (a rule a subninja
/// names `phony` is another one).
inline constexpr size_t kPhonyRule = 0;

/// A whole manifest, each list in the order Ninja read it.
struct Manifest {
  std::vector<ManifestFile> files;    ///< [0]: the top file
  std::vector<ManifestScope> scopes;  ///< [0]: the top file's
  std::vector<ManifestRule> rules;    ///< [0]: the built-in `phony`
  std::vector<ManifestPool> pools;    ///< declared ones (`console` is built in)
  std::vector<ManifestAssignment> assignments;
  std::vector<ManifestEdge> edges;
  std::vector<ManifestInclude> includes;
  std::vector<ManifestDefault> defaults;
};

/// How $in, $in_newline and $out give their paths: shell-escaped as in a
/// command, or verbatim as Ninja reads depfile, dyndep and rspfile.
enum class EdgePathQuoting { kShellEscaped, kVerbatim };

/// What Ninja builds for a manifest without `default` statements: every
/// output that no edge reads (as an input, implicit or order-only), in the
/// order of the edges.
std::vector<std::string> RootTargets(const Manifest& manifest);

/// What Ninja builds when given no target: the targets of the manifest's
/// `default` statements, else its RootTargets.
std::vector<std::string> DefaultTargets(const Manifest& manifest);

/// The files a build of `targets` needs: the targets and every input,
/// implicit or order-only, of the edges that make them, transitively.
std::unordered_set<std::string> Needed(const Manifest& manifest, const std::vector<std::string>& targets);

/// `name` in scope `scope` or its ancestors, "" if unset there.
std::string LookupScopeVariable(const Manifest& manifest, size_t scope, const std::string& name);

/// The value Ninja gives variable `name` of `edge` (`command`, `depfile`,
/// ...): $in, $in_newline and $out first, then the edge's bindings, then its
/// rule's (evaluated now, in the edge's context), then the scope's. Throws
/// ManifestError for a cycle of rule bindings.
std::string EvaluateEdgeVariable(const Manifest& manifest, const ManifestEdge& edge, const std::string& name,
                                 EdgePathQuoting quoting = EdgePathQuoting::kShellEscaped);

}  // namespace fastcuda

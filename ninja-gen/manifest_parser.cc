#include "ninja-gen/manifest_parser.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <set>
#include <utility>
#include <vector>

#include "ninja-gen/manifest_lexer.h"
#include "ninja-gen/manifest_path.h"

namespace fastcuda {
namespace {

/// A `name = value` line, with where its name starts.
struct Binding {
  std::string name;
  ManifestValue value;
  size_t offset = 0;
};

/// The indented lines after a statement's first line, and where the last ends.
struct BindingBlock {
  std::vector<Binding> bindings;
  size_t end = 0;
};

/// A path as written on a statement's line, with where it starts.
struct WrittenPath {
  ManifestValue value;
  size_t offset = 0;
};

/// Rule bindings Ninja accepts; any other name in a rule is an error.
bool IsRuleBinding(const std::string& name) {
  static const std::set<std::string> kNames = {
      "command", "depfile", "dyndep",          "description",     "deps", "generator", "pool",
      "restat",  "rspfile", "rspfile_content", "msvc_deps_prefix"};
  return kNames.count(name) > 0;
}

/// A pool depth as Ninja 1.13 reads it (atoi): leading spaces, a sign, the
/// digits up to the first other character; -1 for a number out of range.
int ParseDepth(const std::string& text) {
  size_t begin = 0;
  while (begin < text.size() && std::isspace(static_cast<unsigned char>(text[begin]))) ++begin;
  if (begin + 1 < text.size() && text[begin] == '+' &&
      std::isdigit(static_cast<unsigned char>(text[begin + 1]))) {
    ++begin;
  }
  int depth = 0;
  auto [end, error] = std::from_chars(text.data() + begin, text.data() + text.size(), depth);
  if (error == std::errc::result_out_of_range) return -1;
  return depth;
}

/// What the reading of all files shares: the graph's nodes so far, which
/// edge makes each output, and the files being read (to refuse a cycle).
struct ReadState {
  const FileSystem& fs;
  Manifest& manifest;
  std::set<std::string> nodes;
  std::map<std::string, size_t> producers;
  std::vector<std::string> reading;
};

/// Reads one file's statements into the manifest, in one scope.
class FileParser {
 public:
  FileParser(ReadState& state, size_t file, size_t scope)
      : state_(state),
        manifest_(state.manifest),
        file_(file),
        scope_(scope),
        lexer_(manifest_.files[file].path, text_) {}

  /// Reads statements up to the end of the file.
  void Parse();

 private:
  /// Bytes [begin, end) of this file.
  ManifestSpan SpanFrom(size_t begin, size_t end) const { return {file_, begin, end}; }
  /// Bytes from `begin` to where the lexer stands.
  ManifestSpan SpanFrom(size_t begin) const { return SpanFrom(begin, lexer_.offset()); }
  /// `value` in this scope, with an edge's bindings (`locals`) first.
  std::string Evaluate(const ManifestValue& value,
                       const std::map<std::string, std::string>& locals = {}) const;
  /// A `name = value` line.
  Binding ParseLet();
  /// The indented `name = value` lines after a statement's first line.
  BindingBlock ParseBindings();
  /// Paths up to the next token that is no path.
  std::vector<WrittenPath> ParsePaths();
  /// A path evaluated and canonicalized; an empty one is an error.
  std::string EvaluatePath(const WrittenPath& path,
                           const std::map<std::string, std::string>& locals = {}) const;
  /// The statements, each after its keyword, which starts at `begin`.
  void ParseAssignment(size_t begin);
  void ParsePool(size_t begin);
  void ParseRule(size_t begin);
  void ParseDefault(size_t begin);
  void ParseEdge(size_t begin);
  void ParseInclude(size_t begin, bool subninja);
  /// Gives `edge` its outputs, the first `explicit_count` explicit; each may have one producer.
  void AddOutputs(ManifestEdge& edge, const std::vector<WrittenPath>& paths, size_t explicit_count);
  /// One list of `edge`'s inputs, which become known targets.
  std::vector<std::string> AddInputs(const ManifestEdge& edge, const std::vector<WrittenPath>& paths) const;
  /// An edge's dyndep file must be one of its inputs.
  void CheckDyndep(const ManifestEdge& edge, size_t begin) const;

  ReadState& state_;
  Manifest& manifest_;
  size_t file_;
  size_t scope_;
  // The lexer reads a copy: the manifest's list of files grows while it reads.
  std::string text_ = manifest_.files[file_].text;
  ManifestLexer lexer_;
};

std::string FileParser::Evaluate(const ManifestValue& value,
                                 const std::map<std::string, std::string>& locals) const {
  return value.Evaluate([&](const std::string& name) {
    auto it = locals.find(name);
    return it != locals.end() ? it->second : LookupScopeVariable(manifest_, scope_, name);
  });
}

Binding FileParser::ParseLet() {
  size_t offset = lexer_.offset();
  std::string name = lexer_.ReadIdent();
  if (name.empty()) lexer_.FailAtToken("expected variable name");
  lexer_.Expect(ManifestToken::kEquals);
  return {name, lexer_.ReadVarValue(), offset};
}

BindingBlock FileParser::ParseBindings() {
  // Looking for one more binding reads the comment lines after the last:
  // they stay out of the statement.
  BindingBlock block{{}, lexer_.offset()};
  while (lexer_.PeekToken(ManifestToken::kIndent)) {
    block.bindings.push_back(ParseLet());
    block.end = lexer_.offset();
  }
  return block;
}

std::vector<WrittenPath> FileParser::ParsePaths() {
  std::vector<WrittenPath> paths;
  for (;;) {
    size_t offset = lexer_.offset();
    ManifestValue value = lexer_.ReadPath();
    if (value.empty()) return paths;
    paths.push_back({std::move(value), offset});
  }
}

std::string FileParser::EvaluatePath(const WrittenPath& path,
                                     const std::map<std::string, std::string>& locals) const {
  std::string evaluated = Evaluate(path.value, locals);
  if (evaluated.empty()) lexer_.Fail(path.offset, "empty path");
  return CanonicalizeManifestPath(evaluated);
}

void FileParser::Parse() {
  for (;;) {
    ManifestToken token = lexer_.ReadToken();
    size_t begin = lexer_.token_begin();
    switch (token) {
      case ManifestToken::kPool:
        ParsePool(begin);
        break;
      case ManifestToken::kBuild:
        ParseEdge(begin);
        break;
      case ManifestToken::kRule:
        ParseRule(begin);
        break;
      case ManifestToken::kDefault:
        ParseDefault(begin);
        break;
      case ManifestToken::kIdent:
        lexer_.UnreadToken();
        ParseAssignment(begin);
        break;
      case ManifestToken::kInclude:
        ParseInclude(begin, false);
        break;
      case ManifestToken::kSubninja:
        ParseInclude(begin, true);
        break;
      case ManifestToken::kError:
        lexer_.FailAtErrorToken();
      case ManifestToken::kEof:
        return;
      case ManifestToken::kNewline:
        break;
      default:
        lexer_.FailAtToken("unexpected " + std::string(ManifestTokenName(token)));
    }
  }
}

void FileParser::ParseAssignment(size_t begin) {
  Binding binding = ParseLet();
  // Evaluated now: a later assignment changes later statements only (but
  // rule bindings, evaluated per edge after reading, see the last value).
  std::string value = Evaluate(binding.value);
  manifest_.scopes[scope_].variables[binding.name] = value;
  manifest_.assignments.push_back({binding.name, value, scope_, SpanFrom(begin)});
}

void FileParser::ParsePool(size_t begin) {
  size_t name_offset = lexer_.offset();
  std::string name = lexer_.ReadIdent();
  if (name.empty()) lexer_.FailAtToken("expected pool name");
  lexer_.Expect(ManifestToken::kNewline);
  bool known = name == "console" || std::any_of(manifest_.pools.begin(), manifest_.pools.end(),
                                                [&](const ManifestPool& pool) { return pool.name == name; });
  if (known) lexer_.Fail(name_offset, "duplicate pool '" + name + "'");
  int depth = -1;
  BindingBlock block = ParseBindings();
  for (const Binding& binding : block.bindings) {
    if (binding.name != "depth") lexer_.Fail(binding.offset, "unexpected variable '" + binding.name + "'");
    depth = ParseDepth(Evaluate(binding.value));
    if (depth < 0) lexer_.Fail(binding.offset, "invalid pool depth");
  }
  if (depth < 0) lexer_.Fail(name_offset, "expected 'depth =' line");
  manifest_.pools.push_back({name, depth, SpanFrom(begin, block.end)});
}

void FileParser::ParseRule(size_t begin) {
  size_t name_offset = lexer_.offset();
  std::string name = lexer_.ReadIdent();
  if (name.empty()) lexer_.FailAtToken("expected rule name");
  lexer_.Expect(ManifestToken::kNewline);
  if (manifest_.scopes[scope_].rules.count(name)) lexer_.Fail(name_offset, "duplicate rule '" + name + "'");
  ManifestRule rule{name, {}, {}};
  BindingBlock block = ParseBindings();
  for (Binding& binding : block.bindings) {
    if (!IsRuleBinding(binding.name))
      lexer_.Fail(binding.offset, "unexpected variable '" + binding.name + "'");
    rule.bindings[binding.name] = std::move(binding.value);
  }
  if (rule.bindings["rspfile"].empty() != rule.bindings["rspfile_content"].empty()) {
    lexer_.Fail(name_offset, "rspfile and rspfile_content need to be both specified");
  }
  if (rule.bindings["command"].empty()) lexer_.Fail(name_offset, "expected 'command =' line");
  // Ninja's checks above leave rspfile and rspfile_content bound, empty if
  // unwritten: an edge then sees "" for them, not its scope's variables.
  rule.span = SpanFrom(begin, block.end);
  manifest_.scopes[scope_].rules[name] = manifest_.rules.size();
  manifest_.rules.push_back(std::move(rule));
}

void FileParser::ParseDefault(size_t begin) {
  std::vector<WrittenPath> paths = ParsePaths();
  if (paths.empty()) lexer_.FailAtToken("expected target name");
  ManifestDefault statement;
  for (const WrittenPath& path : paths) {
    std::string target = EvaluatePath(path);
    if (!state_.nodes.count(target)) lexer_.Fail(path.offset, "unknown target '" + target + "'");
    statement.targets.push_back(target);
  }
  lexer_.Expect(ManifestToken::kNewline);
  statement.span = SpanFrom(begin);
  manifest_.defaults.push_back(std::move(statement));
}

void FileParser::ParseEdge(size_t begin) {
  std::vector<WrittenPath> outputs = ParsePaths();
  size_t explicit_outputs = outputs.size();
  if (lexer_.PeekToken(ManifestToken::kPipe)) {
    for (WrittenPath& path : ParsePaths()) outputs.push_back(std::move(path));
  }
  if (outputs.empty()) lexer_.FailAtToken("expected path");
  lexer_.Expect(ManifestToken::kColon);
  size_t rule_offset = lexer_.offset();
  std::string rule_name = lexer_.ReadIdent();
  if (rule_name.empty()) lexer_.FailAtToken("expected build command name");
  std::optional<size_t> rule;
  for (std::optional<size_t> scope = scope_; scope && !rule; scope = manifest_.scopes[*scope].parent) {
    auto it = manifest_.scopes[*scope].rules.find(rule_name);
    if (it != manifest_.scopes[*scope].rules.end()) rule = it->second;
  }
  if (!rule) lexer_.Fail(rule_offset, "unknown build rule '" + rule_name + "'");
  std::vector<WrittenPath> inputs[4] = {ParsePaths()};
  const ManifestToken kInputSeparators[] = {ManifestToken::kPipe, ManifestToken::kPipe2,
                                            ManifestToken::kPipeAt};
  for (int kind = 1; kind < 4; ++kind) {
    if (lexer_.PeekToken(kInputSeparators[kind - 1])) inputs[kind] = ParsePaths();
  }
  lexer_.Expect(ManifestToken::kNewline);

  ManifestEdge edge;
  edge.rule = *rule;
  edge.scope = scope_;
  // Edge bindings are evaluated in the enclosing scope: one edge binding
  // cannot refer to another.
  BindingBlock block = ParseBindings();
  for (const Binding& binding : block.bindings) edge.bindings[binding.name] = Evaluate(binding.value);
  edge.span = SpanFrom(begin, block.end);
  // Ninja looks the pool up before the edge has paths: $in and $out are empty in it.
  std::string pool = EvaluateEdgeVariable(manifest_, edge, "pool");
  bool known_pool = pool.empty() || pool == "console" ||
                    std::any_of(manifest_.pools.begin(), manifest_.pools.end(),
                                [&](const ManifestPool& declared) { return declared.name == pool; });
  if (!known_pool) lexer_.Fail(begin, "unknown pool name '" + pool + "'");
  AddOutputs(edge, outputs, explicit_outputs);
  edge.inputs = AddInputs(edge, inputs[0]);
  edge.implicit_inputs = AddInputs(edge, inputs[1]);
  edge.order_only_inputs = AddInputs(edge, inputs[2]);
  edge.validations = AddInputs(edge, inputs[3]);
  CheckDyndep(edge, begin);
  manifest_.edges.push_back(std::move(edge));
}

void FileParser::AddOutputs(ManifestEdge& edge, const std::vector<WrittenPath>& paths,
                            size_t explicit_count) {
  for (size_t i = 0; i < paths.size(); ++i) {
    std::string output = EvaluatePath(paths[i], edge.bindings);
    auto [producer, added] = state_.producers.emplace(output, manifest_.edges.size());
    if (!added && producer->second == manifest_.edges.size()) {
      lexer_.Fail(paths[i].offset, output + " is defined as an output multiple times");
    }
    if (!added) lexer_.Fail(paths[i].offset, "multiple rules generate " + output);
    state_.nodes.insert(output);
    (i < explicit_count ? edge.outputs : edge.implicit_outputs).push_back(output);
  }
}

std::vector<std::string> FileParser::AddInputs(const ManifestEdge& edge,
                                               const std::vector<WrittenPath>& paths) const {
  std::vector<std::string> inputs;
  for (const WrittenPath& path : paths) {
    inputs.push_back(EvaluatePath(path, edge.bindings));
    state_.nodes.insert(inputs.back());
  }
  return inputs;
}

void FileParser::CheckDyndep(const ManifestEdge& edge, size_t begin) const {
  std::string dyndep = EvaluateEdgeVariable(manifest_, edge, "dyndep", EdgePathQuoting::kVerbatim);
  if (dyndep.empty()) return;
  dyndep = CanonicalizeManifestPath(dyndep);
  for (const auto* inputs : {&edge.inputs, &edge.implicit_inputs, &edge.order_only_inputs}) {
    if (std::find(inputs->begin(), inputs->end(), dyndep) != inputs->end()) return;
  }
  lexer_.Fail(begin, "dyndep '" + dyndep + "' is not an input");
}

void FileParser::ParseInclude(size_t begin, bool subninja) {
  size_t path_offset = lexer_.offset();
  std::string path = Evaluate(lexer_.ReadPath());
  std::optional<std::string> text = state_.fs.Read(path);
  if (!text) lexer_.Fail(path_offset, "loading '" + path + "': No such file or directory");
  std::string canonical = CanonicalizeManifestPath(path);
  if (std::find(state_.reading.begin(), state_.reading.end(), canonical) != state_.reading.end()) {
    lexer_.Fail(path_offset, "'" + path + "' includes itself");
  }
  size_t file = manifest_.files.size();
  manifest_.files.push_back({path, std::move(*text)});
  size_t scope = scope_;
  if (subninja) {
    scope = manifest_.scopes.size();
    manifest_.scopes.push_back({scope_, {}, {}});
  }
  size_t include = manifest_.includes.size();
  manifest_.includes.push_back({path, subninja, file, {}});
  state_.reading.push_back(canonical);
  FileParser(state_, file, scope).Parse();
  state_.reading.pop_back();
  lexer_.Expect(ManifestToken::kNewline);
  manifest_.includes[include].span = SpanFrom(begin);
}

}  // namespace

Manifest ReadManifest(const FileSystem& fs, const std::string& path) {
  std::optional<std::string> text = fs.Read(path);
  if (!text) throw ManifestError(path, "", 0, "loading '" + path + "': No such file or directory");
  Manifest manifest;
  manifest.files.push_back({path, std::move(*text)});
  manifest.scopes.push_back({});
  manifest.rules.push_back({"phony", {}, {}});
  manifest.scopes[0].rules["phony"] = kPhonyRule;
  ReadState state{fs, manifest, {}, {}, {CanonicalizeManifestPath(path)}};
  FileParser(state, 0, 0).Parse();
  return manifest;
}

}  // namespace fastcuda

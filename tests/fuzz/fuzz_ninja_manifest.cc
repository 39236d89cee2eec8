// libFuzzer target: any text as build.ninja, beside a fixed sub.ninja it may
// include. Reading it either succeeds or throws a ManifestError whose line
// and column lie inside the file it names; and for a manifest that reads,
// cutting a build statement out of the text (its span) leaves a manifest
// with exactly the other edges.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <map>
#include <string>
#include <string_view>

#include "ninja-gen/manifest.h"
#include "ninja-gen/manifest_parser.h"
#include "src/base/file_system.h"

namespace {

/// build.ninja and sub.ninja, nothing else.
class TwoFiles : public fastcuda::FileSystem {
 public:
  explicit TwoFiles(std::string top) : files_{{"build.ninja", std::move(top)}, {"sub.ninja", kSub}} {}
  bool IsFile(const std::string& path) const override { return files_.count(path) > 0; }
  std::optional<std::string> Read(const std::string& path) const override {
    auto it = files_.find(path);
    if (it == files_.end()) return std::nullopt;
    return it->second;
  }

 private:
  static constexpr const char* kSub =
      "rule sub\n  command = sub $in $flags\nflags = -sub\nbuild s.o: sub s.c\n";
  std::map<std::string, std::string> files_;
};

/// Variable references in `text`: each evaluation may double a value, so
/// few are allowed, or a small input could take all memory (in Ninja too).
size_t References(std::string_view text) {
  size_t count = 0;
  for (size_t i = 0; i + 1 < text.size(); ++i) {
    char c = text[i + 1];
    bool name = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
                c == '-' || c == '{';
    if (text[i] == '$' && name) ++count;
  }
  return count;
}

/// The error lies inside the text of the file it names.
void CheckLocation(const fastcuda::ManifestError& error, const TwoFiles& fs) {
  std::optional<std::string> text = fs.Read(error.file());
  if (!text) abort();
  int lines = 1 + static_cast<int>(std::count(text->begin(), text->end(), '\n'));
  if (error.line() < 1 || error.line() > lines || error.column() < 1) abort();
  size_t line_start = 0;
  for (int line = 1; line < error.line(); ++line) line_start = text->find('\n', line_start) + 1;
  size_t line_length = std::min(text->find('\n', line_start), text->size()) - line_start;
  if (static_cast<size_t>(error.column()) > line_length + 1) abort();
}

/// An edge as the graph sees it: all but where it is written.
std::string Describe(const fastcuda::Manifest& manifest, const fastcuda::ManifestEdge& edge) {
  std::string text = manifest.rules[edge.rule].name + "@" + std::to_string(edge.scope);
  for (const auto* paths : {&edge.outputs, &edge.implicit_outputs, &edge.inputs, &edge.implicit_inputs,
                            &edge.order_only_inputs, &edge.validations}) {
    text += "|";
    for (const std::string& path : *paths) text += path + "\n";
  }
  for (const auto& [name, value] : edge.bindings) text += "|" + name + "=" + value;
  try {
    text += "|" + fastcuda::EvaluateEdgeVariable(manifest, edge, "command");
  } catch (const fastcuda::ManifestError& error) {
    text += "|" + std::string(error.what());
  }
  return text;
}

/// Cutting the build statement `cut` out of build.ninja leaves the others.
void CheckCut(const fastcuda::Manifest& manifest, size_t cut) {
  const fastcuda::ManifestSpan& span = manifest.edges[cut].span;
  const std::string& text = manifest.files[0].text;
  if (span.begin > 0 && text[span.begin - 1] != '\n') abort();  // a statement starts a line
  fastcuda::Manifest rest;
  try {
    rest =
        fastcuda::ReadManifest(TwoFiles(text.substr(0, span.begin) + text.substr(span.end)), "build.ninja");
  } catch (const fastcuda::ManifestError& error) {
    // A `default` may name the cut edge's output; nothing else may change.
    if (error.message().rfind("unknown target", 0) != 0) abort();
    return;
  }
  if (rest.edges.size() + 1 != manifest.edges.size()) abort();
  for (size_t i = 0; i < rest.edges.size(); ++i) {
    if (Describe(rest, rest.edges[i]) != Describe(manifest, manifest.edges[i < cut ? i : i + 1])) abort();
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string text(reinterpret_cast<const char*>(data), size);
  if (References(text) > 20) return 0;
  TwoFiles fs(text);
  fastcuda::Manifest manifest;
  try {
    manifest = fastcuda::ReadManifest(fs, "build.ninja");
  } catch (const fastcuda::ManifestError& error) {
    CheckLocation(error, fs);
    return 0;
  }
  for (size_t cut = 0, checked = 0; cut < manifest.edges.size() && checked < 8; ++cut) {
    if (manifest.edges[cut].span.file == 0) CheckCut(manifest, cut), ++checked;
  }
  return 0;
}

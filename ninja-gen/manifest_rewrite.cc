#include "ninja-gen/manifest_rewrite.h"

#include <algorithm>
#include <filesystem>
#include <vector>

#include "ninja-gen/ninja_writer.h"

namespace fastcuda {
namespace {

/// Indexes of the files to copy: those with a cut edge, and their includers.
std::set<size_t> FilesToCopy(const Manifest& manifest, const ManifestCut& cut) {
  std::set<size_t> copied = {0};
  for (size_t edge : cut.edges) copied.insert(manifest.edges.at(edge).span.file);
  for (size_t statement : cut.defaults) copied.insert(manifest.defaults.at(statement).span.file);
  for (bool grew = true; grew;) {
    grew = false;
    for (const ManifestInclude& include : manifest.includes) {
      if (copied.count(include.file) && copied.insert(include.span.file).second) grew = true;
    }
  }
  return copied;
}

/// One replacement of a span of a file's text.
struct Splice {
  size_t begin;
  size_t end;
  std::string text;
};

}  // namespace

std::map<std::string, std::string> CutManifest(const Manifest& manifest, const ManifestCut& cut) {
  const std::set<size_t> copied = FilesToCopy(manifest, cut);
  auto copy_path = [&](size_t file) {
    if (file == 0) return cut.top;
    std::string name = std::filesystem::path(manifest.files[file].path).filename().string();
    return cut.copies_dir + "/" + std::to_string(file) + "-" + name;
  };
  std::map<size_t, std::vector<Splice>> splices;  // file -> its replacements
  for (size_t edge : cut.edges) {
    const ManifestSpan& span = manifest.edges.at(edge).span;
    splices[span.file].push_back({span.begin, span.end, ""});
  }
  for (size_t statement : cut.defaults) {
    const ManifestSpan& span = manifest.defaults.at(statement).span;
    splices[span.file].push_back({span.begin, span.end, ""});
  }
  for (const ManifestInclude& include : manifest.includes) {
    if (!copied.count(include.file)) continue;
    std::string keyword = include.subninja ? "subninja " : "include ";
    splices[include.span.file].push_back(
        {include.span.begin, include.span.end, keyword + EscapeNinjaPath(copy_path(include.file)) + "\n"});
  }
  std::map<std::string, std::string> files;
  for (size_t file : copied) {
    const std::string& original = manifest.files[file].text;
    std::vector<Splice>& changes = splices[file];
    std::sort(changes.begin(), changes.end(),
              [](const Splice& a, const Splice& b) { return a.begin < b.begin; });
    std::string text;
    size_t at = 0;
    for (const Splice& change : changes) {
      text.append(original, at, change.begin - at);
      text += change.text;
      at = change.end;
    }
    text.append(original, at, std::string::npos);
    if (file == 0) text += (text.empty() || text.back() == '\n' ? "" : "\n") + cut.appended;
    files[copy_path(file)] = std::move(text);
  }
  return files;
}

}  // namespace fastcuda

#include "src/base/kept_depfile.h"

#include <filesystem>
#include <map>
#include <set>

#include "src/base/stable_hash.h"

namespace fastcuda {
namespace {

/// The body of a shared header list: the compact layout, without targets.
std::string HeaderListBody(const std::vector<std::string>& headers) {
  return FormatCompactDepfile({{}, headers});
}

/// The kept file as it should read where the headers are not shared.
std::string WholeText(const Depfile& written) {
  return written.dependencies.empty() ? "" : FormatCompactDepfile(written);
}

/// Writes `text` at `path` unless `only_if_changed` and it holds that,
/// without a shared list's attribute.
void KeepWhole(WritableFileSystem& fs, const std::string& path, const std::string& text,
               bool only_if_changed) {
  if (only_if_changed && fs.Read(path) == text && !fs.Attribute(path, std::string(kSharedHeadersAttribute)))
    return;
  fs.Write(path, text);
}

/// The header list named `name` that the kept depfile at `path` may name.
std::string HeaderListPath(const std::string& path, const std::string& name) {
  return SharedHeadersDir(path) + "/" + name;
}

}  // namespace

std::string SharedHeadersDir(const std::string& path) {
  return std::filesystem::path(path).parent_path().parent_path().string() + "/fastcuda-headers";
}

void KeepDepfile(WritableFileSystem& fs, const std::string& path, const Depfile& written,
                 const std::string& source, bool only_if_changed) {
  if (source.empty() || written.dependencies.empty() || written.dependencies.front() != source) {
    KeepWhole(fs, path, WholeText(written), only_if_changed);
    return;
  }
  const std::string body = HeaderListBody({written.dependencies.begin() + 1, written.dependencies.end()});
  const std::string name = ContentHashHex(body);
  const std::string attribute(kSharedHeadersAttribute);
  WriteIfChanged(fs, HeaderListPath(path, name), body);
  if (only_if_changed && fs.Read(path) == "" && fs.Attribute(path, attribute) == name) return;
  fs.Write(path, "");
  // Where the file system keeps no attributes the headers stay in the file.
  if (!fs.SetAttribute(path, attribute, name)) fs.Write(path, WholeText(written));
}

std::optional<std::vector<std::string>> KeptDependencies(const WritableFileSystem& fs,
                                                         const std::string& path, const std::string& source) {
  std::optional<std::string> text = fs.Read(path);
  if (!text) return std::nullopt;
  std::optional<std::string> name;
  if (text->empty()) name = fs.Attribute(path, std::string(kSharedHeadersAttribute));
  if (!name) return ParseDepfile(*text).dependencies;
  std::optional<std::string> body = fs.Read(HeaderListPath(path, *name));
  if (!body || ContentHashHex(*body) != *name) return std::nullopt;
  std::vector<std::string> dependencies = {source};
  for (std::string& header : ParseDepfile(*body).dependencies) dependencies.push_back(std::move(header));
  return dependencies;
}

std::vector<std::string> UnnamedHeaderLists(const WritableFileSystem& fs,
                                            const std::vector<std::string>& kept_depfiles) {
  std::map<std::string, std::set<std::string>> named;  // by their dir
  for (const std::string& kept : kept_depfiles) {
    std::set<std::string>& names = named[SharedHeadersDir(kept)];
    if (std::optional<std::string> name = fs.Attribute(kept, std::string(kSharedHeadersAttribute)))
      names.insert(HeaderListPath(kept, *name));
  }
  std::vector<std::string> unnamed;
  for (const auto& [dir, names] : named) {
    for (const std::string& list : fs.FilesIn(dir)) {
      if (!names.contains(list)) unnamed.push_back(list);
    }
  }
  return unnamed;
}

std::vector<std::string> DependenciesOfDepfiles(const std::vector<std::string>& paths, const std::string& cwd,
                                                const WritableFileSystem& fs, const std::string& source) {
  std::vector<Depfile> parts;
  for (const std::string& path : paths)
    parts.push_back(
        {{}, KeptDependencies(fs, ResolvePath(cwd, path), source).value_or(std::vector<std::string>{})});
  return UnionOfDependencies(parts);
}

}  // namespace fastcuda

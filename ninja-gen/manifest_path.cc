#include "ninja-gen/manifest_path.h"

#include <vector>

namespace fastcuda {
namespace {

bool IsShellSafe(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '+' ||
         c == '-' || c == '.' || c == '/';
}

}  // namespace

std::string CanonicalizeManifestPath(std::string_view path) {
  if (path.empty()) return "";
  bool absolute = path.front() == '/';
  // A `..` that has nothing left to cancel stays, before every named component.
  size_t kept_parents = 0;
  std::vector<std::string_view> components;
  size_t begin = absolute ? 1 : 0;
  while (begin <= path.size()) {
    size_t end = std::min(path.find('/', begin), path.size());
    std::string_view component = path.substr(begin, end - begin);
    begin = end + 1;
    if (component.empty() || component == ".") continue;
    if (component != "..") components.push_back(component);
    else if (!components.empty()) components.pop_back();
    else ++kept_parents;
  }
  std::string canonical = absolute ? "/" : "";
  for (size_t i = 0; i < kept_parents; ++i) canonical += "../";
  for (std::string_view component : components) canonical.append(component).append("/");
  if (canonical.size() > 1 && canonical.back() == '/') canonical.pop_back();
  return canonical.empty() ? "." : canonical;
}

std::string ShellEscapeManifestPath(std::string_view path) {
  bool safe = true;
  for (char c : path) safe = safe && IsShellSafe(c);
  if (safe) return std::string(path);
  std::string quoted = "'";
  for (char c : path) {
    if (c == '\'') quoted += "'\\'";
    quoted += c;
  }
  return quoted + "'";
}

}  // namespace fastcuda

#include "src/file_system.h"

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace fastcuda {

bool RealFileSystem::IsFile(const std::string& path) const {
  std::error_code error;
  return std::filesystem::is_regular_file(path, error);
}

std::optional<std::string> RealFileSystem::Read(const std::string& path) const {
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  std::ostringstream content;
  content << in.rdbuf();
  return content.str();
}

std::string ResolvePath(const std::string& dir, const std::string& path) {
  if (dir.empty() || std::filesystem::path(path).is_absolute()) return path;
  return (std::filesystem::path(dir) / path).lexically_normal().string();
}

bool CachingFileSystem::IsFile(const std::string& path) const {
  auto [it, inserted] = is_file_.emplace(path, false);
  if (inserted) it->second = inner_.IsFile(path);
  return it->second;
}

void WriteFileIfChanged(const std::string& path, const std::string& content) {
  if (RealFileSystem().Read(path) != content) WriteFileAtomically(path, content);
}

void WriteFileAtomically(const std::string& path, const std::string& content) {
  std::filesystem::path target(path);
  if (target.has_parent_path()) std::filesystem::create_directories(target.parent_path());
  std::string temp = path + ".tmp" + std::to_string(getpid());
  {
    std::ofstream out(temp, std::ios::binary | std::ios::trunc);
    out << content;
    if (!out.flush()) throw std::runtime_error("cannot write " + temp);
  }
  std::filesystem::rename(temp, target);
}

}  // namespace fastcuda

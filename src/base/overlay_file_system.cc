#include "src/base/overlay_file_system.h"

namespace fastcuda {

bool OverlayFileSystem::IsFile(const std::string& path) const {
  return files_.contains(path) || under_.IsFile(path);
}

std::optional<std::string> OverlayFileSystem::Read(const std::string& path) const {
  auto file = files_.find(path);
  return file != files_.end() ? file->second : under_.Read(path);
}

}  // namespace fastcuda

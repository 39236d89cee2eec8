#include "src/base/directory_file_system.h"

namespace fastcuda {

bool DirectoryFileSystem::IsFile(const std::string& path) const {
  return inner_.IsFile(ResolvePath(dir_, path));
}

std::optional<std::string> DirectoryFileSystem::Read(const std::string& path) const {
  return inner_.Read(ResolvePath(dir_, path));
}

}  // namespace fastcuda

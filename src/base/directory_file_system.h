// A file system seen from a directory.
#pragma once

#include <optional>
#include <string>

#include "src/base/file_system.h"

namespace fastcuda {

/// A file system whose relative paths start in `dir` (where Ninja runs,
/// which a manifest's paths are relative to).
class DirectoryFileSystem : public FileSystem {
 public:
  DirectoryFileSystem(const FileSystem& inner, std::string dir) : inner_(inner), dir_(std::move(dir)) {}
  bool IsFile(const std::string& path) const override;
  std::optional<std::string> Read(const std::string& path) const override;

 private:
  const FileSystem& inner_;
  std::string dir_;
};

}  // namespace fastcuda

// A file system with files not written yet.
#pragma once

#include <map>
#include <optional>
#include <string>

#include "src/base/file_system.h"

namespace fastcuda {

/// `files` (contents by path) over another file system: what it reads once
/// they are written, read before they are.
class OverlayFileSystem : public FileSystem {
 public:
  OverlayFileSystem(const std::map<std::string, std::string>& files, const FileSystem& under)
      : files_(files), under_(under) {}
  bool IsFile(const std::string& path) const override;
  std::optional<std::string> Read(const std::string& path) const override;

 private:
  const std::map<std::string, std::string>& files_;
  const FileSystem& under_;
};

}  // namespace fastcuda

#include "src/base/directory_lock.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <stdexcept>

namespace fastcuda {

DirectoryLock::DirectoryLock(const std::string& dir, const std::string& name,
                             const std::function<void()>& before_waiting, LockKind kind) {
  std::filesystem::create_directories(dir);
  std::string path = dir + "/" + name;
  fd_ = open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd_ < 0) throw std::runtime_error("cannot open " + path + ": " + std::strerror(errno));
  const int operation = kind == LockKind::kShared ? LOCK_SH : LOCK_EX;
  if (flock(fd_, operation | LOCK_NB) == 0) return;
  if (before_waiting) before_waiting();
  while (flock(fd_, operation) != 0) {
    if (errno != EINTR) throw std::runtime_error("cannot lock " + path + ": " + std::strerror(errno));
  }
}

DirectoryLock::~DirectoryLock() { close(fd_); }

}  // namespace fastcuda

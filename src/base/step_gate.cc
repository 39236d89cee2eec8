#include "src/base/step_gate.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <filesystem>

#include "src/base/process.h"

namespace fastcuda {

DirectoryLockFiles::~DirectoryLockFiles() {
  for (const auto& [name, fd] : fds_) close(fd);
}

bool DirectoryLockFiles::Lock(const std::string& name, LockKind kind) {
  Unlock(name);
  std::error_code ignored;
  std::filesystem::create_directories(dir_, ignored);
  const std::string path = dir_ + "/" + name;
  int fd = open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) return false;
  while (flock(fd, kind == LockKind::kShared ? LOCK_SH : LOCK_EX) != 0) {
    if (errno != EINTR) {
      close(fd);
      return false;
    }
    if (ReceivedSignal() != 0) {
      close(fd);
      StopIfInterrupted();
    }
  }
  fds_[name] = fd;
  return true;
}

void DirectoryLockFiles::Unlock(const std::string& name) {
  auto held = fds_.find(name);
  if (held == fds_.end()) return;
  close(held->second);  // closing the only descriptor of the open file releases its flock
  fds_.erase(held);
}

void StepGate::EnterBeside() {
  if (!locks_) return;
  holds_gate_ = locks_->Lock(kGate, LockKind::kShared);
  holds_running_ = locks_->Lock(kRunning, LockKind::kShared);
  if (holds_gate_) locks_->Unlock(kGate);
  holds_gate_ = false;
}

void StepGate::EnterAlone() {
  if (!locks_) return;
  Leave();
  holds_gate_ = locks_->Lock(kGate, LockKind::kExclusive);
  holds_running_ = locks_->Lock(kRunning, LockKind::kExclusive);
}

void StepGate::Leave() {
  if (!locks_) return;
  if (holds_running_) locks_->Unlock(kRunning);
  if (holds_gate_) locks_->Unlock(kGate);
  holds_running_ = holds_gate_ = false;
}

}  // namespace fastcuda

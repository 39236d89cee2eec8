// One FastCuda process at a time in a directory.
#pragma once

#include <functional>
#include <string>

namespace fastcuda {

/// Who else may hold the lock at the same time: nobody, or other readers.
enum class LockKind { kExclusive, kShared };

/// Holds a lock on DIR/NAME while it lives (exclusive unless asked otherwise). Pass `fd()` to the
/// Ninja that works in the directory (ProcessSpec::inherited_fd): the lock
/// then lasts until that Ninja has reaped its last step, also when this
/// process is killed, so the next FastCuda never runs beside an orphan.
class DirectoryLock {
 public:
  /// Creates DIR; when another process holds the lock, calls `before_waiting`
  /// (if set) and waits for it.
  DirectoryLock(const std::string& dir, const std::string& name,
                const std::function<void()>& before_waiting = {}, LockKind kind = LockKind::kExclusive);
  ~DirectoryLock();
  DirectoryLock(const DirectoryLock&) = delete;
  DirectoryLock& operator=(const DirectoryLock&) = delete;

  /// The locked descriptor (close-on-exec).
  int fd() const { return fd_; }

 private:
  int fd_ = -1;
};

}  // namespace fastcuda

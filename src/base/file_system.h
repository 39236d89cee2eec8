// File access behind a small interface, so the pure core can be tested with a fake.
#pragma once

#include <filesystem>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

namespace fastcuda {

/// The file operations the core needs.
class FileSystem {
 public:
  virtual ~FileSystem() = default;
  /// True if `path` names an existing regular file.
  virtual bool IsFile(const std::string& path) const = 0;
  /// The whole content of `path`, or nullopt if it cannot be read.
  virtual std::optional<std::string> Read(const std::string& path) const = 0;
};

/// A file system the edges also write to: every disk effect of the commands
/// goes through one, so that tests can run them on a fake.
class WritableFileSystem : public FileSystem {
 public:
  /// The modification time of `path`, or nullopt if it does not exist.
  virtual std::optional<std::filesystem::file_time_type> MTime(const std::string& path) const = 0;
  /// The size of `path` in bytes, or nullopt if it does not exist.
  virtual std::optional<uintmax_t> Size(const std::string& path) const = 0;
  virtual void SetMTime(const std::string& path, std::filesystem::file_time_type time) = 0;
  /// When `path` or the link that names it last changed, content or metadata
  /// (the later ctime of the two), in ns since the Unix epoch; nullopt if it
  /// does not exist. Unlike an mtime no tool sets it back: `cp -p`, `touch
  /// -d`, `tar x`, `rsync -a` and `mv` leave it at the time they ran.
  virtual std::optional<int64_t> ChangeTime(const std::string& path) const = 0;
  /// The clock that stamps ChangeTime, now: a file changed after this call
  /// has a ChangeTime at or above what it returns.
  virtual int64_t ClockNow() const = 0;
  /// Gives `path` the mtime that writing it now would: the file system's own
  /// clock, which may lag the system clock by a tick (a file written after
  /// one set to std::chrono's now could look older than it).
  virtual void Touch(const std::string& path) = 0;
  /// Writes `content` whole, atomically (see WriteFileAtomically). Throws std::runtime_error.
  virtual void Write(const std::string& path, const std::string& content) = 0;
  /// Adds `content` at the end of a file that another program also appends
  /// to (Ninja's log, a log the steps of a build share), in one write that
  /// no other appender's splits. Throws std::runtime_error.
  virtual void Append(const std::string& path, const std::string& content) = 0;
  /// Removes a file; false if there was none.
  virtual bool Remove(const std::string& path) = 0;
  /// Moves a file over another; false if there was none to move.
  virtual bool Rename(const std::string& from, const std::string& to) = 0;
  /// The regular files directly in `dir` (their paths), none if it is absent.
  virtual std::vector<std::string> FilesIn(const std::string& dir) const = 0;
  /// Makes `path` a symbolic link to `target`, and its directory first,
  /// unless it is that link already. Throws std::filesystem::filesystem_error.
  virtual void Symlink(const std::string& target, const std::string& path) = 0;
  /// The value of the extended attribute `name` (`user.` names) of `path`,
  /// or nullopt where it has none. Write and Rename give a file the
  /// attributes of the file they write or move.
  virtual std::optional<std::string> Attribute(const std::string& path, const std::string& name) const = 0;
  /// Sets an extended attribute of `path`; false where the file system keeps
  /// none (tmpfs before Linux 6.6, some network file systems) or `path` is absent.
  virtual bool SetAttribute(const std::string& path, const std::string& name, const std::string& value) = 0;
};

/// The real disk.
class RealFileSystem : public WritableFileSystem {
 public:
  bool IsFile(const std::string& path) const override;
  std::optional<std::string> Read(const std::string& path) const override;
  std::optional<std::filesystem::file_time_type> MTime(const std::string& path) const override;
  std::optional<uintmax_t> Size(const std::string& path) const override;
  void SetMTime(const std::string& path, std::filesystem::file_time_type time) override;
  std::optional<int64_t> ChangeTime(const std::string& path) const override;
  int64_t ClockNow() const override;
  void Touch(const std::string& path) override;
  void Write(const std::string& path, const std::string& content) override;
  void Append(const std::string& path, const std::string& content) override;
  bool Remove(const std::string& path) override;
  bool Rename(const std::string& from, const std::string& to) override;
  std::vector<std::string> FilesIn(const std::string& dir) const override;
  void Symlink(const std::string& target, const std::string& path) override;
  std::optional<std::string> Attribute(const std::string& path, const std::string& name) const override;
  bool SetAttribute(const std::string& path, const std::string& name, const std::string& value) override;
};

/// Remembers the answers of another FileSystem's IsFile, for planning many
/// TUs that name the same files. Thread-safe if the inner one is.
class CachingFileSystem : public FileSystem {
 public:
  explicit CachingFileSystem(const FileSystem& inner) : inner_(inner) {}
  bool IsFile(const std::string& path) const override;
  std::optional<std::string> Read(const std::string& path) const override { return inner_.Read(path); }

 private:
  const FileSystem& inner_;
  mutable std::mutex mutex_;
  mutable std::map<std::string, bool> is_file_;
};

/// `path` as seen from directory `dir`: a relative path joined to `dir` and
/// normalized; an absolute path, or any path when `dir` is empty, as it is.
std::string ResolvePath(const std::string& dir, const std::string& path);

/// Writes `content` to `path` through a temporary file and an atomic rename,
/// creating parent directories, so that no reader sees half a file. Throws
/// std::runtime_error.
void WriteFileAtomically(const std::string& path, const std::string& content);

/// Writes `content` unless the file already holds it, leaving its mtime
/// untouched then, so Ninja sees no change.
void WriteIfChanged(WritableFileSystem& fs, const std::string& path, const std::string& content);

}  // namespace fastcuda

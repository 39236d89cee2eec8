#include "src/base/file_system.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <ctime>
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

std::optional<std::filesystem::file_time_type> RealFileSystem::MTime(const std::string& path) const {
  std::error_code error;
  auto time = std::filesystem::last_write_time(path, error);
  if (error) return std::nullopt;
  return time;
}

std::optional<uintmax_t> RealFileSystem::Size(const std::string& path) const {
  std::error_code error;
  uintmax_t size = std::filesystem::file_size(path, error);
  if (error) return std::nullopt;
  return size;
}

void RealFileSystem::SetMTime(const std::string& path, std::filesystem::file_time_type time) {
  std::filesystem::last_write_time(path, time);
}

std::optional<int64_t> RealFileSystem::ChangeTime(const std::string& path) const {
  struct stat link, target;
  if (lstat(path.c_str(), &link) != 0) return std::nullopt;
  auto nanoseconds = [](const timespec& time) { return int64_t{time.tv_sec} * 1000000000 + time.tv_nsec; };
  int64_t changed = nanoseconds(link.st_ctim);
  if (S_ISLNK(link.st_mode)) {
    if (stat(path.c_str(), &target) != 0) return std::nullopt;
    changed = std::max(changed, nanoseconds(target.st_ctim));
  }
  return changed;
}

int64_t RealFileSystem::ClockNow() const {
  // The kernel stamps files from its coarse clock, which may lag the
  // precise one by a tick: a file changed just after a precise reading
  // could look older than it.
  timespec now;
  clock_gettime(CLOCK_REALTIME_COARSE, &now);
  return int64_t{now.tv_sec} * 1000000000 + now.tv_nsec;
}

void RealFileSystem::Touch(const std::string& path) {
  if (utimensat(AT_FDCWD, path.c_str(), nullptr, 0) != 0) {
    throw std::runtime_error("cannot touch " + path + ": " + std::strerror(errno));
  }
}

void RealFileSystem::Write(const std::string& path, const std::string& content) {
  WriteFileAtomically(path, content);
}

void RealFileSystem::Append(const std::string& path, const std::string& content) {
  // One write to a descriptor opened to append: the lines of steps that
  // append at once do not interleave.
  int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (fd < 0) throw std::runtime_error("cannot append to " + path + ": " + std::strerror(errno));
  const ssize_t written = write(fd, content.data(), content.size());
  const int error = errno;
  close(fd);
  if (written != static_cast<ssize_t>(content.size())) {
    throw std::runtime_error("cannot append to " + path + ": " + std::strerror(written < 0 ? error : ENOSPC));
  }
}

bool RealFileSystem::Remove(const std::string& path) {
  std::error_code ignored;  // a file that cannot be removed is not there to trust either
  return std::filesystem::remove(path, ignored);
}

bool RealFileSystem::Rename(const std::string& from, const std::string& to) {
  std::error_code missing;
  std::filesystem::rename(from, to, missing);
  return !missing;
}

std::vector<std::string> RealFileSystem::FilesIn(const std::string& dir) const {
  std::vector<std::string> files;
  std::error_code error;  // an absent or unreadable directory has none
  for (std::filesystem::directory_iterator entry(dir, error), end; !error && entry != end;
       entry.increment(error)) {
    std::error_code ignored;
    if (entry->is_regular_file(ignored)) files.push_back(entry->path().string());
  }
  return files;
}

void RealFileSystem::Symlink(const std::string& target, const std::string& path) {
  std::error_code error;
  if (std::filesystem::read_symlink(path, error) == target) return;
  std::filesystem::create_directories(std::filesystem::path(path).parent_path());
  std::filesystem::remove(path, error);
  std::filesystem::create_symlink(target, path);
}

std::optional<std::string> RealFileSystem::Attribute(const std::string& path, const std::string& name) const {
  char value[256];  // FastCuda's attributes are short: a longer one is not its
  const ssize_t size = getxattr(path.c_str(), name.c_str(), value, sizeof value);
  if (size < 0) return std::nullopt;
  return std::string(value, size);
}

bool RealFileSystem::SetAttribute(const std::string& path, const std::string& name,
                                  const std::string& value) {
  return setxattr(path.c_str(), name.c_str(), value.data(), value.size(), 0) == 0;
}

std::string ResolvePath(const std::string& dir, const std::string& path) {
  if (dir.empty() || std::filesystem::path(path).is_absolute()) return path;
  return (std::filesystem::path(dir) / path).lexically_normal().string();
}

bool CachingFileSystem::IsFile(const std::string& path) const {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    auto known = is_file_.find(path);
    if (known != is_file_.end()) return known->second;
  }
  bool is_file = inner_.IsFile(path);  // outside the lock: other threads' stats go on meanwhile
  std::lock_guard<std::mutex> lock(mutex_);
  is_file_.emplace(path, is_file);
  return is_file;
}

void WriteIfChanged(WritableFileSystem& fs, const std::string& path, const std::string& content) {
  if (fs.Read(path) != content) fs.Write(path, content);
}

void WriteFileAtomically(const std::string& path, const std::string& content) {
  std::filesystem::path target(path);
  if (target.has_parent_path()) std::filesystem::create_directories(target.parent_path());
  // A name no other writer picks: processes of two containers that share a
  // directory (a CI cache) can have one pid.
  std::string temp = path + ".tmpXXXXXX";
  auto fail = [&](const char* what) {
    std::string message = std::string(what) + " " + temp + ": " + std::strerror(errno);
    unlink(temp.c_str());
    throw std::runtime_error(message);
  };
  int fd = mkostemp(temp.data(), O_CLOEXEC);
  if (fd < 0) fail("cannot create");
  auto close_and_fail = [&](const char* what) {
    int error = errno;
    close(fd);
    errno = error;
    fail(what);
  };
  if (fchmod(fd, 0644) != 0) close_and_fail("cannot create");
  for (size_t written = 0; written < content.size();) {
    ssize_t n = write(fd, content.data() + written, content.size() - written);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) close_and_fail("cannot write");
    written += n;
  }
  if (close(fd) != 0) fail("cannot write");  // NFS and full disks may report here
  std::filesystem::rename(temp, target);
}

}  // namespace fastcuda

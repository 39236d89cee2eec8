#include "src/base/dryrun_runner.h"

#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <charconv>
#include <chrono>
#include <filesystem>
#include <mutex>

#include "src/base/process.h"
#include "src/base/toolchain_environment.h"

namespace fastcuda {
namespace {

constexpr std::string_view kDryrunDirPrefix = "fastcuda-dryrun-";

/// A dryrun directory this old was left by its process, not being written:
/// a dryrun takes a second, and a process of another PID namespace that
/// shares the directory looks dead from here.
constexpr auto kAbandonedAge = std::chrono::minutes(1);

/// Whether no process `pid` exists (one of another user's exists).
bool ProcessGone(pid_t pid) { return kill(pid, 0) != 0 && errno == ESRCH; }

/// Removes the dryrun directories in `root` that a FastCuda killed with -9
/// left (RunProcess removes every other), once per process: nothing else
/// would, and each holds nvcc's temporaries.
void SweepAbandonedDryrunDirs(const std::filesystem::path& root) {
  static std::once_flag swept;
  std::call_once(swept, [&root] {
    std::error_code error;
    auto now = std::filesystem::file_time_type::clock::now();
    std::filesystem::directory_iterator entry(root, error), end;
    for (; !error && entry != end; entry.increment(error)) {
      std::optional<pid_t> owner = DryrunDirOwner(entry->path().filename().string());
      if (!owner || *owner == getpid() || !ProcessGone(*owner)) continue;
      std::error_code ignored;
      auto written = entry->last_write_time(ignored);
      if (!ignored && now - written > kAbandonedAge) std::filesystem::remove_all(entry->path(), ignored);
    }
  });
}

/// A TMPDIR of the dryrun's own, in the system's: nvcc stopped in its first
/// milliseconds (Ctrl-C, or FastCuda's death) leaves its empty temporaries
/// there, and RunProcess removes them with the directory. Not in the build
/// tree: nvcc prints these paths into its commands unquoted, and a build
/// directory may hold spaces. Empty (the TMPDIR inherited) where none can
/// be made: nvcc then fails there with its own message.
std::string DryrunTempDir() {
  static std::atomic<unsigned> dryruns{0};
  std::string name =
      std::string(kDryrunDirPrefix) + std::to_string(getpid()) + "-" + std::to_string(dryruns++);
  std::error_code error;
  std::filesystem::path root = std::filesystem::temp_directory_path(error);
  if (error) return "";
  SweepAbandonedDryrunDirs(root);
  std::filesystem::create_directory(root / name, error);
  return error ? "" : (root / name).string();
}

}  // namespace

std::optional<pid_t> DryrunDirOwner(std::string_view name) {
  if (!name.starts_with(kDryrunDirPrefix)) return std::nullopt;
  name.remove_prefix(kDryrunDirPrefix.size());
  pid_t pid = 0;
  auto [end, error] = std::from_chars(name.data(), name.data() + name.size(), pid);
  std::string_view rest(end, name.data() + name.size() - end);
  if (error != std::errc() || pid <= 0 || !rest.starts_with('-') || rest.size() < 2) return std::nullopt;
  return rest.find_first_not_of("0123456789", 1) == std::string_view::npos ? std::optional(pid)
                                                                           : std::nullopt;
}

std::optional<std::string> NvccDryrunRunner::Dryrun(const std::vector<std::string>& nvcc_and_args,
                                                    const std::string& cwd) const {
  ProcessSpec spec{{nvcc_and_args.front(), "--dryrun"}, cwd, {}, true};
  spec.temp_dir = DryrunTempDir();
  spec.argv.insert(spec.argv.end(), nvcc_and_args.begin() + 1, nvcc_and_args.end());
  StopIfInterrupted();
  ProcessResult result = runner_.Run(spec);
  StopIfInterrupted();  // the dryrun failed because it was stopped: no fallback to nvcc
  if (result.exit_code != 0) return std::nullopt;
  return result.stderr_text + result.stdout_text;
}

ProgramIdentity NvccDryrunRunner::Identify(const std::string& program) const {
  std::string path = FindProgram(program, EnvironmentValue(environment_, "PATH"));
  std::error_code error;
  std::string real = std::filesystem::canonical(path, error).string();
  struct stat info {};
  if (error || stat(real.c_str(), &info) != 0) return {program, ""};
  // The inode tells a file replaced by one of the same size and mtime (a
  // package's install, which keeps its files' mtimes) from the file itself.
  return {real, std::to_string(info.st_size) + ":" + std::to_string(info.st_mtim.tv_sec) + "." +
                    std::to_string(info.st_mtim.tv_nsec) + ":" + std::to_string(info.st_ino)};
}

}  // namespace fastcuda

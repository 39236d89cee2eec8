#include "src/base/dryrun_runner.h"

#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <filesystem>

#include "src/base/process.h"

namespace fastcuda {
namespace {

/// A TMPDIR of the dryrun's own, in the system's: nvcc stopped in its first
/// milliseconds (Ctrl-C, or FastCuda's death) leaves its empty temporaries
/// there, and RunProcess removes them with the directory. Not in the build
/// tree: nvcc prints these paths into its commands unquoted, and a build
/// directory may hold spaces. Empty (the TMPDIR inherited) where none can
/// be made: nvcc then fails there with its own message.
std::string DryrunTempDir() {
  static std::atomic<unsigned> dryruns{0};
  std::string name = "fastcuda-dryrun-" + std::to_string(getpid()) + "-" + std::to_string(dryruns++);
  std::error_code error;
  std::filesystem::path dir = std::filesystem::temp_directory_path(error) / name;
  if (!error) std::filesystem::create_directory(dir, error);
  return error ? "" : dir.string();
}

}  // namespace

std::optional<std::string> NvccDryrunRunner::Dryrun(const std::vector<std::string>& nvcc_and_args,
                                                    const std::string& cwd) const {
  ProcessSpec spec{{nvcc_and_args.front(), "--dryrun"}, cwd, {}, true};
  spec.temp_dir = DryrunTempDir();
  spec.argv.insert(spec.argv.end(), nvcc_and_args.begin() + 1, nvcc_and_args.end());
  StopIfInterrupted();
  ProcessResult result = RunProcess(spec);
  StopIfInterrupted();  // the dryrun failed because it was stopped: no fallback to nvcc
  if (result.exit_code != 0) return std::nullopt;
  return result.stderr_text + result.stdout_text;
}

ProgramIdentity NvccDryrunRunner::Identify(const std::string& program) const {
  std::string path = FindProgram(program, EnvironmentVariable("PATH"));
  std::error_code error;
  std::string real = std::filesystem::canonical(path, error).string();
  struct stat info {};
  if (error || stat(real.c_str(), &info) != 0) return {program, ""};
  return {real, std::to_string(info.st_size) + ":" + std::to_string(info.st_mtim.tv_sec) + "." +
                    std::to_string(info.st_mtim.tv_nsec)};
}

}  // namespace fastcuda

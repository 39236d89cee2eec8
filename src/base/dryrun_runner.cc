#include "src/base/dryrun_runner.h"

#include <sys/stat.h>

#include <filesystem>

#include "src/base/process.h"

namespace fastcuda {

std::optional<std::string> NvccDryrunRunner::Dryrun(const std::vector<std::string>& nvcc_and_args,
                                                    const std::string& cwd) const {
  ProcessSpec spec{{nvcc_and_args.front(), "--dryrun"}, cwd, {}, true};
  spec.argv.insert(spec.argv.end(), nvcc_and_args.begin() + 1, nvcc_and_args.end());
  ProcessResult result = RunProcess(spec);
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

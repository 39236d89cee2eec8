#include "src/nvcc/host_compiler.h"

#include "src/base/toolchain_environment.h"

namespace fastcuda {

std::string HostCompilerOf(const std::string& compiler_bindir,
                           const std::map<std::string, std::string>& environment, const std::string& cwd,
                           const FileSystem& fs) {
  std::string compiler =
      compiler_bindir.empty() ? EnvironmentValue(environment, "NVCC_CCBIN") : compiler_bindir;
  if (compiler.empty()) return "gcc";
  const std::string path = ResolvePath(cwd, compiler);
  if (fs.IsFile(path + "/gcc")) return path + "/gcc";
  return compiler.find('/') == std::string::npos ? compiler : path;
}

}  // namespace fastcuda

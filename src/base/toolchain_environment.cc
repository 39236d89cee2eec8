#include "src/base/toolchain_environment.h"

#include <string_view>

namespace fastcuda {
namespace {

/// nvcc reads the NVCC_* variables and those its nvcc.profile names or
/// appends to (the include and library paths, the flags of cudafe++ and
/// ptxas it passes on: the dryrun spells them out); gcc's preprocessor and
/// driver the others (SOURCE_DATE_EPOCH sets __DATE__ and __TIME__, the
/// *_DEPENDENCIES variables make it write depfiles). Not PATH: what matters
/// of it is the programs found on it, which are identified instead (a
/// virtual environment's activation changes its text, not the compilers).
constexpr const char* kToolchainVariables[] = {
    "NVCC_PREPEND_FLAGS", "NVCC_APPEND_FLAGS",  "NVCC_CCBIN",   "LD_LIBRARY_PATH",   "TOP",
    "CICC_PATH",          "NVVMIR_LIBRARY_DIR", "INCLUDES",     "SYSTEM_INCLUDES",   "LIBRARIES",
    "CUDAFE_FLAGS",       "PTXAS_FLAGS",        "CPATH",        "C_INCLUDE_PATH",    "CPLUS_INCLUDE_PATH",
    "GCC_EXEC_PREFIX",    "COMPILER_PATH",      "LIBRARY_PATH", "SOURCE_DATE_EPOCH", "DEPENDENCIES_OUTPUT",
    "SUNPRO_DEPENDENCIES"};

}  // namespace

std::map<std::string, std::string> ToolchainEnvironment(const std::map<std::string, std::string>& ambient) {
  std::map<std::string, std::string> environment;
  for (const char* name : kToolchainVariables) {
    auto value = ambient.find(name);
    if (value != ambient.end()) environment.insert(*value);
  }
  return environment;
}

std::string EnvironmentValue(const std::map<std::string, std::string>& environment, const std::string& name,
                             const std::string& fallback) {
  auto found = environment.find(name);
  return found == environment.end() || found->second.empty() ? fallback : found->second;
}

std::string InheritingPath(const std::string& value, const std::string& ambient) {
  if (ambient.empty() || !value.ends_with(ambient)) return value;
  return value.substr(0, value.size() - ambient.size()) + kInheritedPath;
}

std::string ExpandInheritedPath(const std::string& value, const std::string& inherited) {
  if (!value.ends_with(kInheritedPath)) return value;
  return value.substr(0, value.size() - std::string_view(kInheritedPath).size()) + inherited;
}

std::string EnvironmentKey(const std::map<std::string, std::string>& environment) {
  std::string key;
  for (const auto& [name, value] : environment) key += name + "=" + value + '\n';
  return key;
}

}  // namespace fastcuda

#include <doctest/doctest.h>

#include "src/base/toolchain_environment.h"

using namespace fastcuda;

TEST_CASE("the toolchain's variables are taken from the environment, no others") {
  std::map<std::string, std::string> ambient = {{"CPATH", "/inc1"},         {"NVCC_APPEND_FLAGS", "-DX"},
                                                {"PATH", "/usr/bin"},       {"HOME", "/root"},
                                                {"SOURCE_DATE_EPOCH", "0"}, {"TERM", "xterm"}};
  std::map<std::string, std::string> taken = ToolchainEnvironment(ambient);
  CHECK(taken == std::map<std::string, std::string>{
                     {"CPATH", "/inc1"}, {"NVCC_APPEND_FLAGS", "-DX"}, {"SOURCE_DATE_EPOCH", "0"}});
  ambient["CPATH"] = "/inc2";
  CHECK(EnvironmentKey(ToolchainEnvironment(ambient)) != EnvironmentKey(taken));
  ambient["TERM"] = "dumb";
  ambient["CPATH"] = "/inc1";
  CHECK(EnvironmentKey(ToolchainEnvironment(ambient)) == EnvironmentKey(taken));
  ambient["PATH"] = "/venv/bin:/usr/bin";  // its programs are keyed, not its text
  CHECK(EnvironmentKey(ToolchainEnvironment(ambient)) == EnvironmentKey(taken));
  ambient["PTXAS_FLAGS"] = "-O0";  // nvcc.profile's variables count too
  CHECK(EnvironmentKey(ToolchainEnvironment(ambient)) != EnvironmentKey(taken));
}

TEST_CASE("the steps' PATH goes on with the one they inherit, where nvcc's went on with its own") {
  const std::string nvcc_dirs = "/cuda/nvvm/bin:/cuda/bin:";
  CHECK(InheritingPath(nvcc_dirs + "/usr/bin:/bin", "/usr/bin:/bin") == nvcc_dirs + "$PATH");
  CHECK(ExpandInheritedPath(nvcc_dirs + "$PATH", "/venv/bin:/usr/bin") == nvcc_dirs + "/venv/bin:/usr/bin");
  // A PATH nvcc.profile set whole, or nvcc run without one, stays as it is.
  CHECK(InheritingPath("/cuda/bin", "/usr/bin") == "/cuda/bin");
  CHECK(InheritingPath(nvcc_dirs, "") == nvcc_dirs);
  CHECK(ExpandInheritedPath("/cuda/bin", "/usr/bin") == "/cuda/bin");
}

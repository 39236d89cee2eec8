#include <doctest/doctest.h>

#include "src/base/toolchain_environment.h"

using namespace fastcuda;

TEST_CASE("the toolchain's variables are taken from the environment, no others") {
  std::map<std::string, std::string> ambient = {{"CPATH", "/inc1"},         {"NVCC_APPEND_FLAGS", "-DX"},
                                                {"PATH", "/usr/bin"},       {"HOME", "/root"},
                                                {"SOURCE_DATE_EPOCH", "0"}, {"TERM", "xterm"}};
  std::map<std::string, std::string> taken = ToolchainEnvironment(ambient);
  CHECK(taken == std::map<std::string, std::string>{{"CPATH", "/inc1"},
                                                    {"NVCC_APPEND_FLAGS", "-DX"},
                                                    {"PATH", "/usr/bin"},
                                                    {"SOURCE_DATE_EPOCH", "0"}});
  ambient["CPATH"] = "/inc2";
  CHECK(EnvironmentKey(ToolchainEnvironment(ambient)) != EnvironmentKey(taken));
  ambient["TERM"] = "dumb";
  ambient["CPATH"] = "/inc1";
  CHECK(EnvironmentKey(ToolchainEnvironment(ambient)) == EnvironmentKey(taken));
  ambient["PTXAS_FLAGS"] = "-O0";  // nvcc.profile's variables count too
  CHECK(EnvironmentKey(ToolchainEnvironment(ambient)) != EnvironmentKey(taken));
}

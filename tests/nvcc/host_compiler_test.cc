#include "src/nvcc/host_compiler.h"

#include <doctest/doctest.h>

#include "src/nvcc/nvcc_options.h"
#include "tests/test_support.h"

using namespace fastcuda;
using fastcuda::testing::FakeFileSystem;

TEST_CASE("the host compiler: -ccbin's last, else NVCC_CCBIN, else gcc; a directory's gcc") {
  FakeFileSystem fs({{"/w/tools/gcc", "#!"}});
  const std::map<std::string, std::string> none;
  auto compiler = [&](const std::vector<std::string>& args, const std::map<std::string, std::string>& env) {
    return HostCompilerOf(ScanNvccArgs(args).compiler_bindir, env, "/w", fs);
  };
  CHECK(compiler({"-c", "k.cu"}, none) == "gcc");
  CHECK(compiler({"-c", "k.cu"}, {{"NVCC_CCBIN", "clang++"}}) == "clang++");
  CHECK(compiler({"-ccbin", "g++-12", "-c", "k.cu"}, {{"NVCC_CCBIN", "clang++"}}) == "g++-12");
  CHECK(compiler({"-ccbin=a/c++", "--compiler-bindir", "b/c++"}, none) == "/w/b/c++");
  CHECK(compiler({"--compiler-bindir=/opt/cc"}, none) == "/opt/cc");
  // nvcc runs the gcc of a directory, named bare too.
  CHECK(compiler({"-ccbin", "tools"}, none) == "/w/tools/gcc");
  CHECK(compiler({}, {{"NVCC_CCBIN", "/w/tools"}}) == "/w/tools/gcc");
  // A value of another option is not the compiler.
  CHECK(compiler({"-Xcompiler", "-ccbin", "-c"}, none) == "gcc");
}

#include "src/cli/build_command.h"

#include <doctest/doctest.h>

#include "src/plan/graph_dir.h"
#include "tests/test_support.h"

using namespace fastcuda;
using fastcuda::testing::FakeFileSystem;
using fastcuda::testing::FakeIo;

TEST_CASE("on fakes: build hands the generation its parsed options, and generates only when needed") {
  FakeIo fake(
      FakeFileSystem({{"/p/compile_commands.json",
                       R"([{"directory": "/p", "command": "c++ -c a.cpp -o a.o", "file": "a.cpp"}])"}}),
      {{"FASTCUDA_HOST_LAUNCHER", "ccache"}});
  GenOptions options =
      ParseGenOptions({"--compdb", "/p/compile_commands.json", "--out", "/p/fc"}, fake.environment);
  options.jobs = 3;  // no argument says so: only the options themselves reach the generation
  CHECK(GenerateIfNeeded(options, fake.io) == 0);
  REQUIRE(fake.fs.IsFile(GlobalManifestPath("/p/fc")));
  const std::string key = fake.fs.Read(GenCommandPath("/p/fc")).value_or("");
  CHECK(key == GenerationKey(options, fake.environment));
  CHECK(key.find(" -j 3 ") != std::string::npos);
  CHECK(key.find(" --host-launcher ccache ") != std::string::npos);  // the environment's, read at the edge
  const auto generated = fake.fs.MTime(GlobalManifestPath("/p/fc"));
  CHECK(GenerateIfNeeded(options, fake.io) == 0);
  CHECK(fake.fs.MTime(GlobalManifestPath("/p/fc")) == generated);  // up to date: not generated again
  options.jobs = 4;
  CHECK(GenerateIfNeeded(options, fake.io) == 0);
  CHECK(fake.fs.MTime(GlobalManifestPath("/p/fc")) != generated);
}

TEST_CASE("a build with remote steps has the client start its proxy before the steps run; others do not") {
  fastcuda::testing::FakeCommandRunner runner;
  StartRemoteProxy(StepLaunchers{}, runner);
  StartRemoteProxy(StepLaunchers{{}, {"sccache"}, {}}, runner);
  CHECK(runner.ran.empty());
  StartRemoteProxy(StepLaunchers{{}, RemoteLauncher("/opt/bin/fastcuda-remote", "grpc://h:1"), {}}, runner);
  REQUIRE(runner.ran.size() == 1);
  CHECK(runner.ran[0].argv ==
        std::vector<std::string>{"/opt/bin/fastcuda-remote", "--remote", "grpc://h:1", "--start-proxy"});
}

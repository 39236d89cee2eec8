#include "src/cli/ninja_command.h"

#include <doctest/doctest.h>

#include <string>

#include "ninja-gen/manifest_parser.h"
#include "src/cli/ninja_rewrite.h"
#include "src/plan/graph_dir.h"
#include "tests/test_support.h"

using namespace fastcuda;
using fastcuda::testing::FakeFileSystem;
using fastcuda::testing::FakeIo;

namespace {

/// A rewrite of /m/build.ninja on `fake` that is up to date, and whose
/// directory's lock the caller's build holds: `fastcuda ninja` only runs
/// Ninja.
void RewriteUpToDate(FakeIo& fake) {
  fake.environment["FASTCUDA_NINJA"] = "/opt/ninja";
  fake.environment["FASTCUDA_NINJA_LOCKED"] = RewriteDir("/m");
  NinjaArguments arguments = ParseNinjaArguments({"-C", "/m"});
  fake.fs.Write(GlobalManifestPath(RewriteDir("/m")), "");
  fake.fs.Write(RewriteKeyPath(RewriteDir("/m")),
                RewriteKey(arguments, PartOptions(arguments, fake.environment), fake.environment));
}

}  // namespace

TEST_CASE("on fakes: what reads no manifest goes to Ninja as it is") {
  FakeIo fake(FakeFileSystem(), {{"FASTCUDA_NINJA", "/opt/ninja"}});
  fake.runner.answer = [](const ProcessSpec&) { return ProcessResult{3}; };
  CHECK(NinjaMain({"--version"}, fake.io) == 3);
  REQUIRE(fake.runner.ran.size() == 1);
  CHECK(fake.runner.ran[0].argv == std::vector<std::string>{"/opt/ninja", "--version"});
  CHECK(fake.runner.ran[0].own_process_group);
}

TEST_CASE("on fakes: a tool reads the rewrite as it is, without the lock, NINJA naming fastcuda") {
  FakeIo fake;
  RewriteUpToDate(fake);
  fake.environment.erase("FASTCUDA_NINJA_LOCKED");
  CHECK(NinjaMain({"-C", "/m", "-t", "targets"}, fake.io) == 0);
  REQUIRE(fake.runner.ran.size() == 1);
  const ProcessSpec& ninja = fake.runner.ran[0];
  CHECK(ninja.argv ==
        std::vector<std::string>{"/opt/ninja", "-C", "/m", "-f", ".fastcuda/build.ninja", "-t", "targets"});
  CHECK(ninja.env_set == std::map<std::string, std::string>{{"NINJA", SelfAsNinjaPath(RewriteDir("/m"))}});
  CHECK(ninja.inherited_fd == -1);
}

TEST_CASE("on fakes: a build runs Ninja once on the rewrite, with the user's arguments, its status") {
  FakeIo fake;
  RewriteUpToDate(fake);
  fake.runner.answer = [](const ProcessSpec&) { return ProcessResult{1}; };
  CHECK(NinjaMain({"-C", "/m", "-j", "3", "-k", "2"}, fake.io) == 1);
  REQUIRE(fake.runner.ran.size() == 1);
  CHECK(fake.runner.ran[0].argv == std::vector<std::string>{"/opt/ninja", "-C", "/m", "-f",
                                                            ".fastcuda/build.ninja", "-j", "3", "-k", "2"});
  CHECK(fake.fs.IsFile(BuildStartPath(RewriteDir("/m"))));  // stamped as Ninja started
}

TEST_CASE("SOURCE^ of a TU made by steps is its object; other targets and options stay") {
  SharedObject a = HashSharedObject("obj/a.o", "nvcc -c ../s/a.cu -o obj/a.o", "step");
  a.source = "../s/a.cu";
  SharedObject again = a;  // a second edge compiling a.cu: Ninja's ^ takes the first
  again.output = "obj/a2.o";
  SharedObject read_first_elsewhere = HashSharedObject("obj/c.o", "nvcc -c c.cu -o obj/c.o", "step");
  std::vector<std::string> args = {"-j", "4", "/b/../s/a.cu^", "b.cpp^", "lib", "c.cu^", "-d", "explain"};
  CHECK(ObjectsForCarets(args, {a, again, read_first_elsewhere}, "/b") ==
        std::vector<std::string>{"-j", "4", "obj/a.o", "b.cpp^", "lib", "c.cu^", "-d", "explain"});
}

#include <doctest/doctest.h>

#include "src/base/ninja_command_line.h"
#include "src/cli/run_ninja.h"

using namespace fastcuda;

TEST_CASE("what targets need: the targets and their inputs, resolved where their Ninja runs") {
  NinjaCommandLine line = ParseNinjaCommandLine({"ninja", "-C", "b", "lib", "/abs/x.o", "src/f.cu^"});
  TargetNeeds needs =
      NeedsOfTargets(line.targets, "/w/b", "CMakeFiles/l.dir/a.cu.o\n/s/a.cu\n\n../gen/h.h\n");
  CHECK(needs.paths == std::set<std::string>{"/w/b/CMakeFiles/l.dir/a.cu.o", "/s/a.cu", "/w/gen/h.h",
                                             "/w/b/lib", "/abs/x.o"});
  CHECK(needs.caret_sources == std::set<std::string>{"/w/b/src/f.cu"});
}

#include <doctest/doctest.h>

#include "src/cli/graph_launcher.h"

using namespace fastcuda;

TEST_CASE("what an outer build needs: its targets and their inputs, resolved where its Ninja runs") {
  NinjaCommandLine line = ParseNinjaCommandLine({"ninja", "-C", "b", "lib", "/abs/x.o", "src/f.cu^"});
  OuterBuildNeeds needs = NeedsOfOuterBuild(line, "/w/b", "CMakeFiles/l.dir/a.cu.o\n/s/a.cu\n\n../gen/h.h\n");
  CHECK(needs.paths == std::set<std::string>{"/w/b/CMakeFiles/l.dir/a.cu.o", "/s/a.cu", "/w/gen/h.h",
                                             "/w/b/lib", "/abs/x.o"});
  CHECK(needs.caret_sources == std::set<std::string>{"/w/b/src/f.cu"});
}

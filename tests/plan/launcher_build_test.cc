#include <doctest/doctest.h>

#include "src/plan/launcher_build.h"

using namespace fastcuda;

TEST_CASE("the graph's objects round-trip, any bytes included; damage reads as none") {
  std::vector<GraphObject> objects = {{"/b/CMakeFiles/t.dir/a.cu.o", "/s/a.cu"},
                                      {"/b/caf\xe9.o", "/s/k\xff.cu"}};
  std::vector<GraphObject> back = ParseGraphObjects(FormatGraphObjects(objects));
  REQUIRE(back.size() == 2);
  CHECK(back[1].object == "/b/caf\xe9.o");
  CHECK(back[1].source == "/s/k\xff.cu");
  CHECK(ParseGraphObjects("[{\"object\": 1}]").empty());
  CHECK(ParseGraphObjects("").empty());
}

TEST_CASE("the objects an outer build needs: those it names or needs, and those of its SOURCE^ targets") {
  std::vector<GraphObject> objects = {{"/b/a.o", "/s/a.cu"}, {"/b/b.o", "/s/b.cu"}, {"/b/c.o", "/s/c.cu"}};
  CHECK(ObjectsInScope(objects, {"/b/a.o", "/s/c.cu", "/b/lib.a"}, {}) == std::vector<std::string>{"/b/a.o"});
  CHECK(ObjectsInScope(objects, {}, {"/s/b.cu"}) == std::vector<std::string>{"/b/b.o"});
  CHECK(ObjectsInScope(objects, {"/b/other.o"}, {}).empty());
}

TEST_CASE("a launcher build is trusted only for its own outer build, when it succeeded, for its objects") {
  LauncherBuild build{"4242 987654", true, {"/b/a.o", "/b/c.o"}};
  std::optional<LauncherBuild> back = ParseLauncherBuild(FormatLauncherBuild(build));
  REQUIRE(back);
  CHECK(back->outer_build == build.outer_build);
  CHECK(back->objects == build.objects);
  CHECK(BuiltForThisBuild(*back, "4242 987654", "/b/c.o"));
  CHECK_FALSE(BuiltForThisBuild(*back, "4242 987654", "/b/b.o"));  // not in its scope
  CHECK_FALSE(BuiltForThisBuild(*back, "4242 111", "/b/a.o"));     // a later process with the pid
  CHECK_FALSE(BuiltForThisBuild(*back, "", "/b/a.o"));             // outside any Ninja
  back->succeeded = false;                                         // it may have stopped between a TU's steps
  CHECK_FALSE(BuiltForThisBuild(*back, "4242 987654", "/b/a.o"));
  CHECK_FALSE(ParseLauncherBuild("{\"outer_build\": \"1 2\"}"));
}

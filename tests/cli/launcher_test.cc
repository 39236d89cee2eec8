#include <doctest/doctest.h>

#include "src/base/depfile.h"
#include "src/cli/launcher.h"
#include "src/plan/graph_dir.h"
#include "src/plan/nvcc_call.h"
#include "src/plan/tu_record.h"
#include "tests/test_support.h"

using namespace fastcuda;
using fastcuda::testing::FakeFileSystem;

namespace {

const std::vector<std::string> kCommand = {"nvcc", "-c", "/src/a.cu", "-o", "obj/a.o"};

/// A disk where the graph at /g built /b/obj/a.o from kCommand, its kept
/// depfile written after the source and header it lists, and the file each
/// step leaves there.
FakeFileSystem BuiltByGraph() {
  FakeFileSystem disk;
  disk.Write("/src/a.cu", "source");
  disk.Write("/src/h.h", "header");
  disk.Write("/b/obj/a.o", "object");
  std::string work_dir = WorkDirFor(TuRoot("/g"), "/b/obj/a.o");
  disk.Write(work_dir + "/a.cpp4.ii.deps", "a.cpp4.ii: /src/a.cu /src/h.h\n");
  disk.Write(work_dir + "/a.cubin", "cubin");
  TuRecord record{"/b", TuCommandHash(kCommand), {work_dir + "/a.cpp4.ii.deps"}, {}};
  record.landmarks = {work_dir + "/a.cubin", "/b/obj/a.o"};
  disk.Write(TuRecordsPath("/g"), FormatTuRecords({{work_dir, record}}));
  return disk;
}

LauncherCall Call(std::vector<std::string> extra = {}) {
  std::vector<std::string> nvcc = kCommand;
  nvcc.insert(nvcc.end(), extra.begin(), extra.end());
  LauncherCall call;
  call.graph_dir = "/g";
  call.nvcc = nvcc;
  return call;
}

}  // namespace

TEST_CASE("launcher: words before nvcc are launchers; --graph names the graph") {
  LauncherCall call = ParseLauncherCall({"--graph", "/g", "ccache", "/cuda/bin/nvcc", "-c", "a.cu"});
  CHECK(call.graph_dir == "/g");
  CHECK(call.launcher == std::vector<std::string>{"ccache"});
  CHECK(call.nvcc == std::vector<std::string>{"/cuda/bin/nvcc", "-c", "a.cu"});
  CHECK_FALSE(call.builds_graph);
  LauncherCall building = ParseLauncherCall({"--build-graph", "/g", "nvcc", "-c", "a.cu"});
  CHECK(building.graph_dir == "/g");
  CHECK(building.builds_graph);
  CHECK(building.nvcc == std::vector<std::string>{"nvcc", "-c", "a.cu"});
  // NVCC may be an nvcc of another name: with no nvcc, the first word is it.
  CHECK(ParseLauncherCall({"my-cuda-compiler", "-c", "a.cu"}).launcher.empty());
  CHECK_THROWS_AS(ParseLauncherCall({}), std::invalid_argument);
}

TEST_CASE("launcher on fakes: the graph's object is used when it saw every file; the depfile is written") {
  FakeFileSystem disk = BuiltByGraph();
  CHECK(UseGraphResult(Call({"-MD", "-MF", "obj/a.o.d"}), "/b", disk));
  CHECK(disk.Read("/b/obj/a.o.d").value_or("") ==
        FormatDepfile({{"obj/a.o"}, {"/src/a.cu", "/src/h.h"}}, /*phony_targets=*/false));
  // The object is no older than what it was made from, for CMake's Ninja.
  CHECK(disk.MTime("/b/obj/a.o") >= disk.MTime("/src/h.h"));
}

TEST_CASE("launcher on fakes: never the graph's object when it may be stale") {
  FakeFileSystem edited = BuiltByGraph();
  edited.Write("/src/h.h", "header, edited after the graph ran");
  CHECK_FALSE(UseGraphResult(Call(), "/b", edited));
  FakeFileSystem disk = BuiltByGraph();
  CHECK_FALSE(UseGraphResult(Call({"-DOTHER"}), "/b", disk));  // another command
  CHECK_FALSE(UseGraphResult(Call(), "/elsewhere", disk));     // another directory
  disk.Remove("/b/obj/a.o");
  CHECK_FALSE(UseGraphResult(Call(), "/b", disk));
  // A step failed in the graph's last build (make -k went on): the object
  // there is an older build's, its depfiles as new as the sources.
  FakeFileSystem failed = BuiltByGraph();
  failed.Remove(WorkDirFor(TuRoot("/g"), "/b/obj/a.o") + "/a.cubin");
  CHECK_FALSE(UseGraphResult(Call(), "/b", failed));
}

TEST_CASE("launcher on fakes: after a whole-call cache's hit, the lookup's depfile alone says the headers") {
  FakeFileSystem disk;
  disk.Write("/src/a.cu", "source");
  disk.Write("/src/h.h", "header, edited after the last miss");
  disk.Write("/b/obj/a.o", "the cache's object");
  const std::string work_dir = WorkDirFor(TuRoot("/g"), "/b/obj/a.o");
  // The lookup hit: the kept preprocess depfile is a miss's from before the
  // edit (or gone); the lookup's lists the headers now.
  disk.Write(work_dir + "/cache-result", "hit");
  disk.Write(work_dir + "/cache-object.deps", "a.o: /src/a.cu /src/h.h\n");
  TuRecord record{"/b", TuCommandHash(kCommand), {work_dir + "/a.cpp4.ii.deps"}};
  record.cache_result = work_dir + "/cache-result";
  record.cache_depfile = work_dir + "/cache-object.deps";
  record.landmarks = {work_dir + "/a.cubin"};  // ptxas did not run: the cache gave the object
  disk.Write(TuRecordsPath("/g"), FormatTuRecords({{work_dir, record}}));
  CHECK(UseGraphResult(Call({"-MD", "-MF", "obj/a.o.d"}), "/b", disk));
  CHECK(disk.Read("/b/obj/a.o.d").value_or("") ==
        FormatDepfile({{"obj/a.o"}, {"/src/a.cu", "/src/h.h"}}, /*phony_targets=*/false));
  // After a miss the kept preprocess depfiles count again (here: missing).
  disk.Write(work_dir + "/cache-result", "miss");
  CHECK_FALSE(UseGraphResult(Call(), "/b", disk));
}

#include <doctest/doctest.h>

#include "src/graph/kept_intermediates.h"
#include "src/graph/whole_call_cache.h"
#include "tests/test_support.h"

using namespace fastcuda;
using fastcuda::testing::FakeFileSystem;
using fastcuda::testing::LoadTranscript;

namespace {

StepGraph DepfileGraph() {
  DepfileRequest depfile;
  return BuildStepGraph(LoadTranscript("depfile"), {"/src", "/b/w", depfile, true}, FakeFileSystem());
}

}  // namespace

TEST_CASE("a graph keeps its intermediates in the work dir; its object is no intermediate, nor the depfile") {
  StepGraph graph = DepfileGraph();
  KeptFiles kept = KeptFilesOf(graph);
  REQUIRE(kept.objects.size() == 1);
  CHECK(kept.objects[0].rfind("/src/", 0) == 0);
  CHECK(kept.objects[0].ends_with(".o"));
  REQUIRE_FALSE(kept.intermediates.empty());
  for (const std::string& path : kept.intermediates) CHECK(path.rfind("/b/w/", 0) == 0);
  bool has_preprocessed = false;
  for (const std::string& path : kept.intermediates) has_preprocessed |= path.ends_with(".cpp1.ii");
  CHECK(has_preprocessed);
}

TEST_CASE("a whole-call cache lookup's dyndep file is kept, its result is an intermediate") {
  StepGraph graph = DepfileGraph();
  REQUIRE(AddWholeCallCache(graph, {"ccache"}, {"nvcc", "-c", "kernel.cu", "-o", "kernel.o"}));
  const GraphStep* lookup = CacheLookupOf(graph);
  REQUIRE(lookup);
  REQUIRE(!lookup->cache.dyndep.empty());
  KeptFiles kept = KeptFilesOf(graph);
  auto listed = [&](const std::string& path) {
    return std::find(kept.intermediates.begin(), kept.intermediates.end(), ResolvePath("/src", path)) !=
           kept.intermediates.end();
  };
  CHECK_FALSE(listed(lookup->cache.dyndep));
  CHECK(listed(lookup->outputs.front()));  // the result: the lookup runs again
}

TEST_CASE("a missing object orphans its TU's intermediates; present ones keep theirs") {
  std::vector<KeptFiles> tus = {{{"/o/a.o"}, {"/w/a.ii", "/w/a.ptx", "/w/a.cubin"}},
                                {{"/o/b.o"}, {"/w/b.ii", "/w/b.ptx"}}};
  FakeFileSystem disk({{"/o/b.o", ""}, {"/w/a.ii", ""}, {"/w/a.ptx", ""}, {"/w/b.ii", ""}, {"/w/b.ptx", ""}});
  CHECK(OrphanedIntermediates(tus, disk) == std::vector<std::string>{"/w/a.ii", "/w/a.ptx"});
  FakeFileSystem all({{"/o/a.o", ""}, {"/o/b.o", ""}, {"/w/a.ii", ""}});
  CHECK(OrphanedIntermediates(tus, all).empty());
}

TEST_CASE("an object another command made gives up its TU's intermediates") {
  std::vector<KeptFiles> tus = {{{"/o/a.o", "/o/a.cubin"}, {"/w/a.ii", "/w/a.ptx"}},
                                {{"/o/b.o"}, {"/w/b.ii", "/w/b.ptx"}}};
  FakeFileSystem disk({{"/o/a.o", ""},
                       {"/o/a.cubin", ""},
                       {"/o/b.o", ""},
                       {"/w/a.ii", ""},
                       {"/w/b.ii", ""},
                       {"/w/b.ptx", ""}});  // every object there: only where each was made decides
  CHECK(OrphanedIntermediates(tus, disk, {"/o/b.o"}) == std::vector<std::string>{"/w/b.ii", "/w/b.ptx"});
  CHECK(OrphanedIntermediates(tus, disk, {"/o/a.cubin"}) == std::vector<std::string>{"/w/a.ii"});
  CHECK(OrphanedIntermediates(tus, disk, {}).empty());
}

TEST_CASE("a new generation leaves behind the intermediates that only the last one named") {
  std::vector<KeptFiles> before = {{{"/o/a.o"}, {"/w/a.ii", "/w/a.compute_86.ptx"}},
                                   {{"/o/b.o"}, {"/w/b.ii"}}};
  std::vector<KeptFiles> now = {{{"/o/a.o"}, {"/w/a.ii", "/w/a.compute_90.ptx"}}};
  CHECK(IntermediatesLeftBehind(before, now) == std::vector<std::string>{"/w/a.compute_86.ptx", "/w/b.ii"});
  CHECK(IntermediatesLeftBehind(now, now).empty());
  CHECK(IntermediatesLeftBehind({}, now).empty());
}

#include <doctest/doctest.h>

#include <algorithm>

#include "src/graph/whole_call_cache.h"
#include "tests/test_support.h"

using namespace fastcuda;
using fastcuda::testing::Contains;
using fastcuda::testing::FakeFileSystem;
using fastcuda::testing::IsTopological;
using fastcuda::testing::kProjectDir;
using fastcuda::testing::kWorkDir;
using fastcuda::testing::LoadTranscript;

namespace {

using Words = std::vector<std::string>;

/// The "depfile" transcript's graph (`-MD -MF obj/kernel.o.d`), or without the user's depfile.
StepGraph DepfileGraph(bool user_depfile) {
  FakeFileSystem files({{std::string(kProjectDir) + "/kernel.cu", ""}});
  StepGraphOptions options{kProjectDir, kWorkDir, {"obj/kernel.o", true}};
  options.keep_depfiles = true;
  StepGraph graph = BuildStepGraph(LoadTranscript("depfile"), options, files);
  if (!user_depfile) {
    graph.steps.pop_back();
    graph.final_outputs = {"obj/kernel.o"};
  }
  return graph;
}

const Words kNvcc = {"nvcc", "-arch=sm_80", "-MD", "-MF",         "obj/kernel.o.d",
                     "-c",   "kernel.cu",   "-o",  "obj/kernel.o"};

}  // namespace

TEST_CASE("the cache's lookup and store name FastCuda's files, in the flags' own spelling") {
  CHECK(WithOutputs(kNvcc, "/w/o.o", "/w/o.d") ==
        Words{"nvcc", "-arch=sm_80", "-MD", "-MF", "/w/o.d", "-c", "kernel.cu", "-o", "/w/o.o"});
  CHECK(WithOutputs({"nvcc", "--output-file=k.o", "--dependency-output=k.d", "-c", "k.cu"}, "/w/o.o",
                    "/w/o.d") ==
        Words{"nvcc", "--output-file=/w/o.o", "--dependency-output=/w/o.d", "-c", "k.cu"});
  // A compile database's command without CMake's depfile flags gets them.
  CHECK(WithOutputs({"nvcc", "-c", "k.cu", "-o", "obj/k.o"}, "/w/o.o", "/w/o.d") ==
        Words{"nvcc", "-c", "k.cu", "-o", "/w/o.o", "-MD", "-MT", "obj/k.o", "-MF", "/w/o.d"});
}

TEST_CASE("a ccache launcher: the lookup first, every program step waits for it, the object's step stores") {
  StepGraph graph = DepfileGraph(true);
  const size_t steps = graph.steps.size();
  REQUIRE(AddWholeCallCache(graph, {"/usr/bin/ccache"}, kNvcc));
  REQUIRE(graph.steps.size() == steps + 1);
  const GraphStep& lookup = graph.steps.front();
  CHECK(lookup.kind == StepKind::kCacheLookup);
  CHECK(lookup.argv.front() == "/usr/bin/ccache");
  CHECK(Contains(lookup.argv, std::string(kWorkDir) + "/cache-object.o"));
  CHECK(Contains(lookup.argv, std::string(kWorkDir) + "/cache-object.d"));
  CHECK(lookup.depfile == std::string(kWorkDir) + "/cache-object.d");  // Ninja keeps the hit's headers
  CHECK(lookup.inputs == Words{"kernel.cu"});
  CHECK(lookup.cache.store_depfiles == Words{"obj/kernel.o.d"});  // after a miss, the headers it waits for
  for (size_t i = 1; i < graph.steps.size(); ++i) {
    const GraphStep& step = graph.steps[i];
    CAPTURE(StepKindName(step.kind));
    CHECK(std::count(step.after.begin(), step.after.end(), 0u) == 1);
    for (size_t earlier : step.after) CHECK(earlier < graph.steps.size());
    if (!RunByFastcuda(step.kind)) {
      CHECK(step.cache.result == lookup.outputs.front());
      CHECK(Contains(step.inputs, lookup.outputs.front()));
    }
    // Only the steps that run on a hit too wait through the dyndep file.
    CHECK(WaitsThroughDyndep(step) ==
          (step.kind == StepKind::kHostCompile || step.kind == StepKind::kFilterDependencies));
  }
  CHECK(lookup.outputs[2] == std::string(kWorkDir) + "/cache-dyndep");
  CHECK(lookup.cache.dyndep == lookup.outputs[2]);
  CHECK(CacheLookupOf(graph) == &lookup);
  auto object = std::find_if(graph.steps.begin(), graph.steps.end(),
                             [](const GraphStep& step) { return step.kind == StepKind::kHostCompile; });
  REQUIRE(object != graph.steps.end());
  CHECK(object->cache.hit_object == lookup.outputs[1]);
  CHECK(Contains(object->inputs, lookup.outputs[1]));
  CHECK(object->cache.store.front() == "/usr/bin/ccache");
  CHECK(Contains(object->cache.store, std::string(kWorkDir) + "/cache-store.o"));
  CHECK(object->cache.store_depfiles == Words{"obj/kernel.o.d"});  // the user's, merged
  CHECK(object->cache.dyndep == lookup.outputs[2]);
  CHECK(object->cache.on_hit == Words{lookup.outputs[1], "obj/kernel.o.d"});  // its copy, the user's depfile
  auto filter = std::find_if(graph.steps.begin(), graph.steps.end(), [](const GraphStep& step) {
    return step.kind == StepKind::kFilterDependencies;
  });
  REQUIRE(filter != graph.steps.end());
  CHECK(Contains(filter->inputs, lookup.kept_depfile));
  CHECK(filter->cache.result == lookup.outputs.front());  // on a hit, the lookup's headers alone
  CHECK(filter->cache.on_hit == Words{lookup.kept_depfile});
  // The store waits for the merged depfile, whose step nvcc lists last: it comes before the object's now.
  CHECK(filter < object);
  CHECK(std::count(object->after.begin(), object->after.end(), size_t(filter - graph.steps.begin())) == 1);
  CHECK(IsTopological(graph));
}

TEST_CASE("the lookup waits for the call's response files: another content is another call") {
  StepGraph graph = DepfileGraph(true);
  Words nvcc = kNvcc;
  nvcc.insert(nvcc.begin() + 1, {"-optf", "opts.rsp"});
  REQUIRE(AddWholeCallCache(graph, {"ccache"}, nvcc));
  CHECK(Contains(graph.steps.front().inputs, std::string(kProjectDir) + "/opts.rsp"));
}

TEST_CASE("without the user's depfile the store takes the kept ones; no whole-call cache, no lookup") {
  StepGraph graph = DepfileGraph(false);
  REQUIRE(AddWholeCallCache(graph, {"ccache"}, kNvcc));
  auto object = std::find_if(graph.steps.begin(), graph.steps.end(),
                             [](const GraphStep& step) { return step.kind == StepKind::kHostCompile; });
  REQUIRE(object != graph.steps.end());
  CHECK(object->cache.store_depfiles.size() == 2);  // the host's and the device's preprocessing
  CHECK(object->cache.on_hit == Words{graph.steps.front().outputs[1]});  // no user's depfile to wait for
  StepGraph unchanged = DepfileGraph(true);
  const size_t steps = unchanged.steps.size();
  CHECK_FALSE(AddWholeCallCache(unchanged, {"sccache"}, kNvcc));
  CHECK_FALSE(AddWholeCallCache(unchanged, {}, kNvcc));
  CHECK(unchanged.steps.size() == steps);
}

TEST_CASE("a depfile step that waits for the object's step: no lookup, the graph as it was") {
  StepGraph tangled = DepfileGraph(true);
  auto object = std::find_if(tangled.steps.begin(), tangled.steps.end(),
                             [](const GraphStep& step) { return step.kind == StepKind::kHostCompile; });
  REQUIRE(object != tangled.steps.end());
  REQUIRE(tangled.steps.back().kind == StepKind::kFilterDependencies);
  tangled.steps.back().after.push_back(object - tangled.steps.begin());
  const std::vector<GraphStep> before = tangled.steps;
  CHECK_FALSE(AddWholeCallCache(tangled, {"ccache"}, kNvcc));
  REQUIRE(tangled.steps.size() == before.size());
  for (size_t i = 0; i < before.size(); ++i) {
    CHECK(tangled.steps[i].kind == before[i].kind);
    CHECK(tangled.steps[i].after == before[i].after);
    CHECK(tangled.steps[i].inputs == before[i].inputs);
  }
}

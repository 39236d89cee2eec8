#include <doctest/doctest.h>

#include <filesystem>

#include "src/graph/whole_call_cache.h"
#include "src/plan/nvcc_call.h"
#include "tests/test_support.h"

using namespace fastcuda;
using fastcuda::testing::FakeFileSystem;
using fastcuda::testing::IsTopological;
using fastcuda::testing::RecordedRunner;
using fastcuda::testing::TranscriptText;

namespace {

NvccCall ParsedCall(std::vector<std::string> args, std::map<std::string, std::string> environment = {}) {
  return {"nvcc", std::move(args), "/src/project", std::move(environment)};
}

NvccPlan Plan(const NvccCall& call, const RecordedRunner& runner) {
  return PlanNvccCall(
      call, [](const std::string& output) { return output + ".work"; }, {}, {}, runner,
      FakeFileSystem(std::map<std::string, std::string>{{"/src/project/kernel.cu", ""}}));
}

}  // namespace

TEST_CASE("a launcher call is planned from its dryrun, in the work dir of its output, without nvcc") {
  RecordedRunner runner(TranscriptText("single_arch"));
  NvccPlan plan =
      Plan(ParsedCall({"-c", "kernel.cu", "-o", "kernel.o", "-arch=sm_80"}, {{"CPATH", "/inc"}}), runner);
  REQUIRE(plan.graph);
  CHECK(runner.commands ==
        std::vector<std::vector<std::string>>{{"nvcc", "-c", "kernel.cu", "-o", "kernel.o", "-arch=sm_80"}});
  CHECK(plan.graph->work_dir == "/src/project/kernel.o.work");
  CHECK(plan.graph->final_outputs == std::vector<std::string>{"kernel.o"});
  CHECK(plan.graph->environment.at("CPATH") == "/inc");
}

TEST_CASE("modes nvcc must run itself are known before any dryrun; a failed dryrun falls back too") {
  RecordedRunner runner(TranscriptText("single_arch"));
  NvccPlan preprocess = Plan(ParsedCall({"-E", "kernel.cu"}), runner);
  CHECK_FALSE(preprocess.graph);
  CHECK(preprocess.fallback_reason == "nvcc option -E");
  NvccPlan appended = Plan(ParsedCall({"-c", "kernel.cu"}, {{"NVCC_APPEND_FLAGS", "-E"}}), runner);
  CHECK(appended.fallback_reason == "nvcc option -E");
  CHECK(runner.commands.empty());
  RecordedRunner failing(std::nullopt);
  CHECK(Plan(ParsedCall({"-c", "kernel.cu", "-o", "kernel.o"}), failing).fallback_reason ==
        "nvcc --dryrun failed");
}

TEST_CASE("a work dir's name is the same in a build directory elsewhere, and distinct per output") {
  auto name = [](const std::string& root, const std::string& output) {
    return std::filesystem::path(WorkDirFor(root, output)).filename().string();
  };
  CHECK(WorkDirFor("/b1/fastcuda/tu", "/b1/obj/a.o").starts_with("/b1/fastcuda/tu/a.o-"));
  CHECK(name("/b1/fastcuda/tu", "/b1/obj/a.o") == name("/home/me/b2/fastcuda/tu", "/home/me/b2/obj/a.o"));
  CHECK(name("/b1/fastcuda/tu", "/b1/obj/a.o") != name("/b1/fastcuda/tu", "/b1/other/a.o"));
  CHECK(name("/b1/fastcuda/tu", "/b1/obj/a.o") != name("/b1/fastcuda/tu", "/b2/obj/a.o"));
}

TEST_CASE("a launcher call with a depfile under ccache: its graph lists the steps in a topological order") {
  RecordedRunner runner(TranscriptText("depfile"));
  std::vector<std::string> args = {"-c",  "kernel.cu", "-o",           "obj/kernel.o", "-arch=sm_80",
                                   "-MD", "-MT",       "obj/kernel.o", "-MF",          "obj/kernel.o.d"};
  NvccPlan plan = Plan(ParsedCall(args), runner);
  REQUIRE(plan.graph);
  CHECK(IsTopological(*plan.graph));
  args.insert(args.begin(), "nvcc");
  REQUIRE(AddWholeCallCache(*plan.graph, {"ccache"}, args));  // as LauncherMain does
  CHECK(IsTopological(*plan.graph));
}

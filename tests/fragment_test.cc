#include <doctest/doctest.h>

#include <re2/re2.h>

#include "ninja-gen/fragment.h"
#include "src/shell_words.h"
#include "tests/test_support.h"

using namespace fastcuda;
using fastcuda::testing::FakeFileSystem;
using fastcuda::testing::LoadTranscript;

namespace {

StepGraph Graph(const std::string& name, const std::string& cwd, DepfileRequest depfile = {}) {
  return BuildStepGraph(LoadTranscript(name), {cwd, "/b/w dir", depfile},
                        FakeFileSystem({{cwd + "/kernel.cu", ""}}));
}

int Count(const std::string& text, const std::string& pattern) {
  re2::StringPiece input(text);
  int count = 0;
  RE2 re(pattern);
  while (RE2::FindAndConsume(&input, re)) ++count;
  return count;
}

}  // namespace

TEST_CASE("one edge per sub-command, described by kind, arch and source") {
  StepGraph graph = Graph("multi_gencode", "/src");
  FragmentOptions options{"/bin/fastcuda", "/b/w dir/nvcc.env", "/src", ""};
  std::string manifest = SingleGraphManifest(graph, options, {}, "");
  CHECK(Count(manifest, R"((?m)^build )") == static_cast<int>(graph.steps.size()));
  CHECK(Count(manifest, R"(desc = CICC compute_\d+ kernel\.cu)") == 3);
  CHECK(Count(manifest, R"(desc = PTXAS sm_\d+ kernel\.cu)") == 3);
  CHECK(Count(manifest, R"(desc = CPP_DEVICE compute_\d+ kernel\.cu)") == 3);
  CHECK(manifest.find("/tmp/") == std::string::npos);
  CHECK(manifest.find("default kernel.o\n") != std::string::npos);
  CHECK(manifest.find("build /b/w$ dir/") != std::string::npos);  // escaped space
  CHECK(Count(manifest, R"((?m)^  deps = gcc$)") == 2);  // the two preprocess rules
}

TEST_CASE("steps run through `fastcuda step` with their environment; quoting survives") {
  StepGraph graph = Graph("single_arch", "/src");
  FragmentOptions options{"/bin/fast cuda", "/b/w dir/nvcc.env", "/src", ""};
  NinjaWriter writer;
  WriteStepEdges(writer, graph, options);
  std::string cmd_line;
  REQUIRE(RE2::PartialMatch(writer.text(), R"((?m)^  cmd = (.*PTXAS.*|.*ptxas.*)$)", &cmd_line));
  std::vector<std::string> words = SplitShellWords(cmd_line);
  CHECK(words[0] == "/bin/fast cuda");
  CHECK(words[1] == "step");
  CHECK(words[2] == "--env-file");
  CHECK(words[3] == "/b/w dir/nvcc.env");
}

TEST_CASE("when Ninja runs elsewhere, relative paths become absolute and steps chdir") {
  StepGraph graph = Graph("depfile", "/src", {"obj/kernel.o", true});
  FragmentOptions options{"/bin/fastcuda", "/b/env", "/b", ""};
  std::string manifest = SingleGraphManifest(graph, options, {}, "");
  CHECK(manifest.find("default /src/obj/kernel.o /src/obj/kernel.o.d\n") != std::string::npos);
  CHECK(manifest.find("--cwd /src") != std::string::npos);
  CHECK(manifest.find("--absolute-depfile") != std::string::npos);
  CHECK(manifest.find("build /src/obj/kernel.o.d: DEPFILE") != std::string::npos);
  CHECK(manifest.find("merge-depfiles --cwd /src --target obj/kernel.o -o obj/kernel.o.d") !=
        std::string::npos);
}

TEST_CASE("pool depths: parsed from text, written as pools the rules use") {
  PoolDepths pools = ParsePoolDepths("cicc=4,PTXAS=8");
  CHECK(pools.at(StepKind::kCicc) == 4);
  CHECK(pools.at(StepKind::kPtxas) == 8);
  CHECK_THROWS(ParsePoolDepths("nonsense=1"));
  CHECK_THROWS(ParsePoolDepths("cicc"));
  CHECK_THROWS(ParsePoolDepths("cicc=0"));
  NinjaWriter writer;
  WriteStepRules(writer, pools);
  CHECK(writer.text().find("pool fastcuda_cicc\n  depth = 4\n") != std::string::npos);
  CHECK(writer.text().find(
            "rule CICC\n  command = $cmd\n  description = $desc\n  restat = 1\n  pool = fastcuda_cicc\n") !=
        std::string::npos);
}

TEST_CASE("launcher mode captures each step's output under a command-specific name") {
  StepGraph graph = Graph("single_arch", "/src");
  FragmentOptions options{"/bin/fastcuda", "/b/env", "/src", "/b/cap"};
  std::string first = CapturePath(options, graph, 0);
  CHECK(first.rfind("/b/cap/step0-", 0) == 0);
  graph.steps[0].argv.push_back("-DCHANGED");
  CHECK(CapturePath(options, graph, 0) != first);
}

#include <doctest/doctest.h>

#include "src/graph/work_dir_commands.h"
#include "tests/test_support.h"

using namespace fastcuda;
using fastcuda::testing::Contains;
using fastcuda::testing::kWorkDir;
using fastcuda::testing::RecordedGraph;

namespace {

const GraphStep& FirstOf(const StepGraph& graph, StepKind kind) {
  for (const GraphStep& step : graph.steps) {
    if (step.kind == kind) return step;
  }
  throw std::logic_error("no such step");
}

}  // namespace

TEST_CASE("cicc, ptxas and fatbinary name the work dir's files bare, and nothing else changes") {
  StepGraph graph = RecordedGraph("multi_gencode");
  for (StepKind kind : {StepKind::kCicc, StepKind::kPtxas, StepKind::kFatbinary}) {
    const GraphStep& step = FirstOf(graph, kind);
    std::optional<std::vector<std::string>> argv = CommandInWorkDir(step, kWorkDir);
    REQUIRE(argv);
    REQUIRE(argv->size() == step.argv.size());
    bool named_work_dir = false;
    for (size_t i = 0; i < argv->size(); ++i) {
      CHECK((*argv)[i].find(kWorkDir) == std::string::npos);
      if ((*argv)[i] == step.argv[i]) continue;
      named_work_dir = true;
      std::string bare = step.argv[i];
      for (size_t at; (at = bare.find(std::string(kWorkDir) + "/")) != std::string::npos;) {
        bare.erase(at, std::string(kWorkDir).size() + 1);
      }
      CHECK((*argv)[i] == bare);
    }
    CHECK(named_work_dir);
  }
  // The source keeps its absolute name: cicc records it.
  CHECK(Contains(*CommandInWorkDir(FirstOf(graph, StepKind::kCicc), kWorkDir), "/src/project/kernel.cu"));
}

TEST_CASE("steps that read the TU's own files, or name a relative path, stay in the TU's directory") {
  StepGraph graph = RecordedGraph("multi_gencode");
  for (StepKind kind : {StepKind::kDevicePreprocess, StepKind::kCudafe, StepKind::kHostCompile}) {
    CHECK_FALSE(CommandInWorkDir(FirstOf(graph, kind), kWorkDir));
  }
  GraphStep ptxas = FirstOf(graph, StepKind::kPtxas);
  ptxas.argv.insert(ptxas.argv.begin() + 1, "--options-file=opts/ptxas.txt");
  CHECK_FALSE(CommandInWorkDir(ptxas, kWorkDir));
  ptxas.argv[1] = "--options-file=/etc/ptxas.txt";
  CHECK(CommandInWorkDir(ptxas, kWorkDir));
}

TEST_CASE("a launcher's options may name a URL; its program must not be a relative path") {
  GraphStep cicc = FirstOf(RecordedGraph("multi_gencode"), StepKind::kCicc);
  cicc.argv.insert(cicc.argv.begin(), {"remote-run", "--remote", "http://10.0.0.1:50051"});
  cicc.launcher_words = 3;
  std::optional<std::vector<std::string>> argv = CommandInWorkDir(cicc, kWorkDir);
  REQUIRE(argv);
  CHECK(std::vector<std::string>(argv->begin(), argv->begin() + 3) ==
        std::vector<std::string>{"remote-run", "--remote", "http://10.0.0.1:50051"});
  cicc.argv[0] = "tools/remote-run";
  CHECK_FALSE(CommandInWorkDir(cicc, kWorkDir));
  cicc.argv[0] = "/opt/tools/remote-run";
  CHECK(CommandInWorkDir(cicc, kWorkDir));
}

TEST_CASE("steps that write line or debug information (-G) stay in the TU's directory") {
  StepGraph graph = RecordedGraph("debug_G");
  for (StepKind kind : {StepKind::kCicc, StepKind::kPtxas, StepKind::kFatbinary}) {
    CHECK_FALSE(CommandInWorkDir(FirstOf(graph, kind), kWorkDir));
  }
  GraphStep cicc = FirstOf(RecordedGraph("multi_gencode"), StepKind::kCicc);
  REQUIRE(CommandInWorkDir(cicc, kWorkDir));
  cicc.argv.push_back("-generate-line-info");
  CHECK_FALSE(CommandInWorkDir(cicc, kWorkDir));
}

TEST_CASE("cicc writing LTO-IR stays in the TU's directory, which the IR records") {
  GraphStep cicc = FirstOf(RecordedGraph("multi_gencode"), StepKind::kCicc);
  REQUIRE(CommandInWorkDir(cicc, kWorkDir));
  cicc.argv.push_back("-lto");
  CHECK_FALSE(CommandInWorkDir(cicc, kWorkDir));
}

TEST_CASE("ptxas writing the user's -cubin output stays in the TU's directory") {
  StepGraph graph = RecordedGraph("cubin");
  const GraphStep& ptxas = FirstOf(graph, StepKind::kPtxas);
  REQUIRE(Contains(ptxas.argv, "kernel.cubin"));
  CHECK_FALSE(CommandInWorkDir(ptxas, kWorkDir));
  CHECK(CommandInWorkDir(FirstOf(graph, StepKind::kCicc), kWorkDir));
}

TEST_CASE("a launcher is told the inputs as the step runs: bare in the work dir, else as named") {
  GraphStep cicc = FirstOf(RecordedGraph("multi_gencode"), StepKind::kCicc);
  CHECK(InputsForLauncher(cicc, kWorkDir, true).empty());  // no launcher
  cicc.argv.insert(cicc.argv.begin(), "remote-run");
  cicc.launcher_words = 1;
  REQUIRE(cicc.inputs.size() == 2);
  for (const std::string& input : cicc.inputs) CHECK(input.starts_with(std::string(kWorkDir) + "/"));
  std::vector<std::string> bare = InputsForLauncher(cicc, kWorkDir, true);
  CHECK(bare == std::vector<std::string>{"kernel.module_id", "kernel.compute_80.cpp1.ii"});
  CHECK(InputsForLauncher(cicc, kWorkDir, false) == cicc.inputs);
  GraphStep host = FirstOf(RecordedGraph("multi_gencode"), StepKind::kHostCompile);
  host.launcher_words = 1;
  CHECK(InputsForLauncher(host, kWorkDir, false).empty());
  // Cached here by FastCuda's client: named as the step names them, in place
  const std::vector<std::string> here = {"/opt/bin/fastcuda-remote", "--cache-only", "--remote",
                                         "grpc://h:1"};
  host.argv.insert(host.argv.begin(), here.begin(), here.end());
  host.launcher_words = here.size();
  CHECK_FALSE(CommandInWorkDir(host, kWorkDir));
  CHECK(InputsForLauncher(host, kWorkDir, false) == host.inputs);
}

TEST_CASE("cudafe++ that FastCuda's remote client runs names the work dir's files bare too") {
  GraphStep cudafe = FirstOf(RecordedGraph("multi_gencode"), StepKind::kCudafe);
  CHECK_FALSE(CommandInWorkDir(cudafe, kWorkDir));
  const std::vector<std::string> client = {"/opt/bin/fastcuda-remote", "--remote", "grpc://h:1"};
  cudafe.argv.insert(cudafe.argv.begin(), client.begin(), client.end());
  cudafe.launcher_words = client.size();
  std::optional<std::vector<std::string>> argv = CommandInWorkDir(cudafe, kWorkDir);
  REQUIRE(argv);
  for (const std::string& word : *argv) CHECK(word.find(kWorkDir) == std::string::npos);
  CHECK(Contains(*argv, "kernel.cpp4.ii"));
  CHECK(InputsForLauncher(cudafe, kWorkDir, true) == std::vector<std::string>{"kernel.cpp4.ii"});
  // Through another launcher (sccache) it keeps nvcc's paths.
  cudafe.argv.erase(cudafe.argv.begin(), cudafe.argv.begin() + 3);
  cudafe.argv.insert(cudafe.argv.begin(), "sccache");
  cudafe.launcher_words = 1;
  CHECK_FALSE(CommandInWorkDir(cudafe, kWorkDir));
}

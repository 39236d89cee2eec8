#include <doctest/doctest.h>

#include "src/graph/kept_intermediates.h"
#include "src/graph/stubbed_intermediates.h"
#include "tests/test_support.h"

using namespace fastcuda;
using fastcuda::testing::FakeFileSystem;
using fastcuda::testing::LoadTranscript;
using fastcuda::testing::RecordedGraph;

namespace {

/// The file name's end of each stubbed intermediate, with its producer's
/// and reader's kinds.
std::vector<std::string> Described(const StepGraph& graph) {
  std::vector<std::string> described;
  for (const StubbedIntermediate& stubbed : StubbedIntermediates(graph)) {
    std::string path = stubbed.path.substr(stubbed.path.rfind('.'));
    described.push_back(std::string(StepKindName(graph.steps[stubbed.producer].kind)) + " " + path + " " +
                        std::string(StepKindName(graph.steps[stubbed.consumer].kind)));
  }
  return described;
}

/// The stubbed intermediate that cicc reads (the `.cpp1.ii`).
StubbedIntermediate CiccsInput(const StepGraph& graph) {
  std::vector<StubbedIntermediate> stubbed = StubbedIntermediates(graph);
  auto cicc = std::find_if(stubbed.begin(), stubbed.end(), [&](const StubbedIntermediate& one) {
    return graph.steps[one.consumer].kind == StepKind::kCicc;
  });
  REQUIRE(cicc != stubbed.end());
  return *cicc;
}

}  // namespace

TEST_CASE(
    "the preprocessed files, cudafe++'s host source, the cubin and the .fatbin.c are stubbed, each read by "
    "one "
    "step") {
  StepGraph graph = RecordedGraph("single_arch");
  CHECK(Described(graph) == std::vector<std::string>{"CPP_HOST .ii CUDAFE", "CUDAFE .cpp HOST_CC",
                                                     "CPP_DEVICE .ii CICC", "PTXAS .cubin FATBINARY",
                                                     "FATBINARY .c HOST_CC"});
  for (const StubbedIntermediate& stubbed : StubbedIntermediates(graph))
    CHECK(stubbed.producer < stubbed.consumer);
}

TEST_CASE("with the user's depfile too") {
  DepfileRequest depfile;
  StepGraph graph =
      BuildStepGraph(LoadTranscript("depfile"), {"/src", "/b/w", depfile, true}, FakeFileSystem());
  CHECK(Described(graph).size() == 5);
}

TEST_CASE("every architecture's preprocessed file is stubbed for its own cicc") {
  StepGraph graph = RecordedGraph("multi_gencode");
  size_t device = 0;
  for (const std::string& described : Described(graph)) device += described == "CPP_DEVICE .ii CICC";
  CHECK(device > 1);
}

TEST_CASE("cicc's PTX is stubbed where ptxas alone reads it, whole where fatbinary embeds it too") {
  StepGraph graph = RecordedGraph("multi_gencode");  // sm_80, sm_90 and compute_90, sm_100
  std::vector<std::string> stubbed_ptx;
  for (const StubbedIntermediate& stubbed : StubbedIntermediates(graph)) {
    if (!stubbed.path.ends_with(".ptx")) continue;
    CHECK(graph.steps[stubbed.consumer].kind == StepKind::kPtxas);
    stubbed_ptx.push_back(stubbed.path.substr(stubbed.path.rfind('/') + 1));
  }
  CHECK(stubbed_ptx.size() == 2);
  for (const std::string& name : stubbed_ptx) CHECK(name.find("90") == std::string::npos);
}

TEST_CASE("a file that two steps read stays whole") {
  StepGraph graph = RecordedGraph("single_arch");
  const size_t before = StubbedIntermediates(graph).size();
  StubbedIntermediate cicc = CiccsInput(graph);
  graph.steps.push_back(graph.steps[cicc.consumer]);  // reads the .cpp1.ii alone of them
  CHECK(StubbedIntermediates(graph).size() == before - 1);
}

TEST_CASE("a file that a step's command names beside its inputs stays whole") {
  StepGraph graph = RecordedGraph("single_arch");
  std::vector<StubbedIntermediate> before = StubbedIntermediates(graph);
  REQUIRE(!before.empty());
  GraphStep embedding = graph.steps[before.back().consumer];
  embedding.kind = StepKind::kEmbedFatbin;
  embedding.inputs.clear();
  embedding.argv = {"gcc", "-c", before.back().path, "-o", "k.o"};
  graph.steps.push_back(embedding);
  CHECK(StubbedIntermediates(graph).size() == before.size() - 1);
}

TEST_CASE("what cicc writes and no step reads is stubbed by cicc itself") {
  StepGraph graph = RecordedGraph("single_arch");
  std::vector<std::string> unread;
  for (const UnreadIntermediate& one : UnreadIntermediates(graph)) {
    CHECK(graph.steps[one.producer].kind == StepKind::kCicc);
    unread.push_back(one.path.substr(one.path.rfind('/') + 1));
  }
  CHECK(unread == std::vector<std::string>{"kernel.cudafe1.c", "kernel.cudafe1.gpu"});
}

TEST_CASE("a step that reads a stubbed file without being its one reader regenerates it, never stubs it") {
  StepGraph graph = RecordedGraph("single_arch");
  StubbedIntermediate cicc = CiccsInput(graph);
  CHECK(InputsThatMayBeStubs(graph, cicc.consumer).empty());
  graph.steps.push_back(graph.steps[cicc.consumer]);
  CHECK(InputsThatMayBeStubs(graph, cicc.consumer) == std::vector<std::string>{cicc.path});
  CHECK(InputsThatMayBeStubs(graph, graph.steps.size() - 1) == std::vector<std::string>{cicc.path});
}

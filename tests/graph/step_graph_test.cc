#include <doctest/doctest.h>

#include <re2/re2.h>
#include <algorithm>
#include <filesystem>

#include "src/graph/step_graph.h"
#include "src/graph/whole_call_cache.h"
#include "tests/test_support.h"

using namespace fastcuda;
using fastcuda::testing::Contains;
using fastcuda::testing::FakeFileSystem;
using fastcuda::testing::IsTopological;
using fastcuda::testing::kProjectDir;
using fastcuda::testing::kWorkDir;
using fastcuda::testing::LoadTranscript;
using fastcuda::testing::TranscriptText;

namespace {

StepGraph Graph(const std::string& name, std::map<std::string, std::string> files = {},
                DepfileRequest depfile = {}) {
  files.emplace(std::string(kProjectDir) + "/kernel.cu", "");
  files.emplace(std::string(kProjectDir) + "/host.cpp", "");
  return BuildStepGraph(LoadTranscript(name), {kProjectDir, kWorkDir, depfile}, FakeFileSystem(files));
}

std::vector<const GraphStep*> OfKind(const StepGraph& graph, StepKind kind) {
  std::vector<const GraphStep*> steps;
  for (const GraphStep& step : graph.steps) {
    if (step.kind == kind) steps.push_back(&step);
  }
  return steps;
}

/// The step that writes fatbinary's `.fatbin.c`: the stitch of a split
/// fatbinary (fatbin_split.h), else fatbinary itself.
const GraphStep* FatbinWriter(const StepGraph& graph) {
  std::vector<const GraphStep*> stitch = OfKind(graph, StepKind::kFatbinStitch);
  return stitch.empty() ? OfKind(graph, StepKind::kFatbinary).front() : stitch.front();
}

size_t IndexOf(const StepGraph& graph, const GraphStep* step) { return step - graph.steps.data(); }

bool Waits(const GraphStep& step, size_t index) {
  return std::find(step.after.begin(), step.after.end(), index) != step.after.end();
}

std::string Joined(const std::vector<std::string>& words) {
  std::string text;
  for (const std::string& word : words) text += word + " ";
  return text;
}

}  // namespace

TEST_CASE("three -gencode targets: one chain per arch, typed by program and suffix") {
  StepGraph graph = Graph("multi_gencode");
  CHECK(OfKind(graph, StepKind::kDevicePreprocess).size() == 3);
  CHECK(OfKind(graph, StepKind::kHostPreprocess).size() == 1);
  CHECK(OfKind(graph, StepKind::kCudafe).size() == 1);
  CHECK(OfKind(graph, StepKind::kCicc).size() == 3);
  CHECK(OfKind(graph, StepKind::kPtxas).size() == 3);
  // fatbinary, split: one per image (SASS of three archs, PTX of one), and the stitch.
  CHECK(OfKind(graph, StepKind::kFatbinary).size() == 4);
  CHECK(OfKind(graph, StepKind::kFatbinStitch).size() == 1);
  CHECK(OfKind(graph, StepKind::kHostCompile).size() == 1);
  CHECK(OfKind(graph, StepKind::kRemove).empty());
  std::vector<std::string> archs;
  for (const GraphStep* cicc : OfKind(graph, StepKind::kCicc)) archs.push_back(cicc->arch);
  std::sort(archs.begin(), archs.end());
  CHECK(archs == std::vector<std::string>{"compute_100", "compute_80", "compute_90"});
  CHECK(graph.final_outputs == std::vector<std::string>{"kernel.o"});
  CHECK(graph.source == "kernel.cu");
}

TEST_CASE("no temporary survives renaming; every intermediate is in the work dir") {
  StepGraph graph = Graph("multi_gencode");
  for (const GraphStep& step : graph.steps) {
    std::string line = Joined(step.argv);
    CHECK_MESSAGE(line.find("tmpxft") == std::string::npos, line);
    CHECK_MESSAGE(line.find("/tmp/") == std::string::npos, line);
    for (const std::string& output : step.outputs) {
      if (output != "kernel.o") CHECK(output.rfind(std::string(kWorkDir) + "/", 0) == 0);
    }
  }
}

TEST_CASE("names are stable: another nvcc process id gives the same graph") {
  std::string text = TranscriptText("multi_gencode");
  std::string other = text;
  RE2::GlobalReplace(&other, R"(tmpxft_[0-9a-f]+_)", "tmpxft_0000beef_");
  auto lookup = [](std::string_view) { return std::nullopt; };
  FakeFileSystem fs({{std::string(kProjectDir) + "/kernel.cu", ""}});
  StepGraph a = BuildStepGraph(ParseTranscript(text, lookup), {kProjectDir, kWorkDir, {}}, fs);
  StepGraph b = BuildStepGraph(ParseTranscript(other, lookup), {kProjectDir, kWorkDir, {}}, fs);
  REQUIRE(a.steps.size() == b.steps.size());
  for (size_t i = 0; i < a.steps.size(); ++i) CHECK(a.steps[i].argv == b.steps[i].argv);
}

TEST_CASE("bare names stay bare basenames beside the generated .cudafe1.cpp") {
  StepGraph graph = Graph("multi_gencode");
  const GraphStep* cudafe = OfKind(graph, StepKind::kCudafe).front();
  std::vector<std::string> stub = FlagValues(cudafe->argv, {"--stub_file_name"});
  REQUIRE(stub.size() == 1);
  CHECK(stub[0].find('/') == std::string::npos);
  std::string gen_c = FlagValues(cudafe->argv, {"--gen_c_file_name"}).front();
  std::string stub_path = gen_c.substr(0, gen_c.rfind('/') + 1) + stub[0];
  bool written_by_cicc = false;
  for (const GraphStep* cicc : OfKind(graph, StepKind::kCicc)) {
    if (Contains(cicc->outputs, stub_path)) written_by_cicc = true;
    std::string include = FlagValues(cicc->argv, {"--include_file_name"}).front();
    CHECK(include.find('/') == std::string::npos);
  }
  CHECK(written_by_cicc);
}

TEST_CASE("the host compile waits for the stub.c and fatbin.c it #includes") {
  StepGraph graph = Graph("multi_gencode");
  const GraphStep* host = OfKind(graph, StepKind::kHostCompile).front();
  const GraphStep* fatbinary = FatbinWriter(graph);
  CHECK(Waits(*host, IndexOf(graph, fatbinary)));
  std::string stub = std::string(kWorkDir) + "/" +
                     FlagValues(OfKind(graph, StepKind::kCudafe).front()->argv, {"--stub_file_name"}).front();
  CHECK(Contains(host->inputs, stub));
  CHECK(Contains(host->inputs, fatbinary->outputs.front()));
  for (const GraphStep* cicc : OfKind(graph, StepKind::kCicc)) {
    if (Contains(cicc->outputs, stub)) CHECK(Waits(*host, IndexOf(graph, cicc)));
  }
}

TEST_CASE("cicc reads the module id from cudafe++ but not the future fatbin.c") {
  StepGraph graph = Graph("multi_gencode");
  const GraphStep* cudafe = OfKind(graph, StepKind::kCudafe).front();
  std::string module_id = FlagValues(cudafe->argv, {"--module_id_file_name"}).front();
  CHECK(Contains(cudafe->outputs, module_id));
  for (const GraphStep* cicc : OfKind(graph, StepKind::kCicc)) {
    CHECK(Contains(cicc->inputs, module_id));
    CHECK(Waits(*cicc, IndexOf(graph, cudafe)));
    for (const std::string& input : cicc->inputs) CHECK(input.find(".fatbin.c") == std::string::npos);
  }
}

TEST_CASE(
    "every ptxas waits for its own cicc, its image's fatbinary for it alone, the stitch for every image") {
  StepGraph graph = Graph("multi_gencode");
  const GraphStep* stitch = OfKind(graph, StepKind::kFatbinStitch).front();
  std::vector<const GraphStep*> images = OfKind(graph, StepKind::kFatbinary);
  for (const GraphStep* ptxas : OfKind(graph, StepKind::kPtxas)) {
    REQUIRE(ptxas->after.size() == 1);
    const GraphStep& cicc = graph.steps[ptxas->after[0]];
    CHECK(cicc.kind == StepKind::kCicc);
    CHECK(Contains(cicc.outputs, ptxas->inputs.front()));
    CHECK(ptxas->inputs.front().find(".ptx") != std::string::npos);
    CHECK(std::count_if(images.begin(), images.end(), [&](const GraphStep* image) {
            return image->after == std::vector<size_t>{IndexOf(graph, ptxas)};
          }) == 1);
  }
  for (const GraphStep* image : images) {
    REQUIRE(image->after.size() == 1);
    CHECK(Waits(*stitch, IndexOf(graph, image)));
    CHECK(Contains(stitch->fatbin_images, image->outputs.front()));
    CHECK(image->outputs.front() == image->inputs.front() + ".image.fatbin");
  }
}

TEST_CASE("a PTX-only target's ptxas check writes nothing, and the fatbinary waits for it, as nvcc does") {
  StepGraph graph = Graph("ptx_only");
  std::vector<const GraphStep*> ptxas = OfKind(graph, StepKind::kPtxas);
  REQUIRE(ptxas.size() == 2);
  const GraphStep* check = ptxas[0]->outputs.empty() ? ptxas[0] : ptxas[1];
  REQUIRE(check->outputs.empty());
  CHECK(check->arch == "compute_90");
  CHECK(Waits(*FatbinWriter(graph), IndexOf(graph, check)));
  for (const GraphStep* image : OfKind(graph, StepKind::kFatbinary))
    CHECK_FALSE(Waits(*image, IndexOf(graph, check)));
}

TEST_CASE("preprocess steps report headers; -MD adds a depfile step after all of them") {
  StepGraph graph = Graph("depfile", {}, {"obj/kernel.o", true});
  for (const GraphStep& step : graph.steps) {
    if (!IsPreprocess(step.kind)) continue;
    CHECK(step.depfile == step.outputs.front() + ".d");
    std::vector<std::string> tail(step.argv.end() - 3, step.argv.end());
    CHECK(tail == std::vector<std::string>{"-MD", "-MF", step.depfile});
    CHECK_FALSE(step.kept_depfile.empty());
  }
  const GraphStep& last = graph.steps.back();
  REQUIRE(last.kind == StepKind::kFilterDependencies);
  CHECK(last.outputs == std::vector<std::string>{"obj/kernel.o.d"});
  CHECK(last.inputs.size() == 2);
  CHECK(last.after.size() == 2);
  CHECK(graph.depfile_request.target == "obj/kernel.o");
}

TEST_CASE("for Ninja's deps = gcc, the step that makes the object writes the user's depfile last") {
  StepGraph graph = Graph("depfile", {}, {"obj/kernel.o", true});
  REQUIRE(graph.steps.back().kind == StepKind::kFilterDependencies);  // nvcc's order: the depfile last
  REQUIRE(HandDepfileToNinja(graph));
  std::vector<const GraphStep*> filter = OfKind(graph, StepKind::kFilterDependencies);
  REQUIRE(filter.size() == 1);
  CHECK(filter[0]->outputs == std::vector<std::string>{std::string(kWorkDir) + "/ninja-deps.d"});
  std::vector<const GraphStep*> host = OfKind(graph, StepKind::kHostCompile);
  REQUIRE(host.size() == 1);
  CHECK(host[0]->ninja_depfile == "obj/kernel.o.d");
  CHECK(host[0]->ninja_depfile_from == std::string(kWorkDir) + "/ninja-deps.d");
  CHECK(Contains(host[0]->inputs, host[0]->ninja_depfile_from));
  // The object waits for the merged depfile, whose step now comes first.
  CHECK(Waits(*host[0], IndexOf(graph, filter[0])));
  CHECK(IndexOf(graph, filter[0]) < IndexOf(graph, host[0]));
  CHECK(IsTopological(graph));
  StepGraph without = Graph("depfile", {}, {"", false});
  without.steps.pop_back();  // no user depfile: nothing to hand over
  CHECK_FALSE(HandDepfileToNinja(without));
  // A depfile step that waits for the object's step has no place before it.
  StepGraph tangled = Graph("depfile", {}, {"obj/kernel.o", true});
  size_t object = IndexOf(tangled, OfKind(tangled, StepKind::kHostCompile).front());
  tangled.steps.back().after.push_back(object);
  const std::vector<GraphStep> before = tangled.steps;
  CHECK_FALSE(HandDepfileToNinja(tangled));
  REQUIRE(tangled.steps.size() == before.size());
  for (size_t i = 0; i < before.size(); ++i) {
    CHECK(tangled.steps[i].outputs == before[i].outputs);
    CHECK(tangled.steps[i].after == before[i].after);
    CHECK(tangled.steps[i].ninja_depfile.empty());
  }
}

TEST_CASE("for Ninja's deps = gcc without a user depfile, the object's step hands Ninja an empty one") {
  StepGraph without = Graph("depfile", {}, {"", false});
  without.steps.pop_back();  // nvcc asked for no depfile (Meson 1.0's nvcc rule)
  REQUIRE_FALSE(HandDepfileToNinja(without));
  REQUIRE(HandEmptyDepfileToNinja(without));
  std::vector<const GraphStep*> host = OfKind(without, StepKind::kHostCompile);
  REQUIRE(host.size() == 1);
  CHECK(host[0]->ninja_depfile == std::string(kWorkDir) + "/ninja-deps.d");
  CHECK(host[0]->ninja_depfile_from.empty());
  StepGraph with = Graph("depfile", {}, {"obj/kernel.o", true});
  CHECK_FALSE(HandEmptyDepfileToNinja(with));  // the user's depfile goes to Ninja instead
}

TEST_CASE("Ninja sees every read where the object's depfile merges every header depfile and no other file") {
  StepGraph graph = Graph("depfile", {}, {"obj/kernel.o", true});
  graph.source = "kernel.cu";
  CHECK_FALSE(NinjaSeesEveryRead(graph));  // the merged depfile is not yet Ninja's
  REQUIRE(HandDepfileToNinja(graph));
  CHECK(NinjaSeesEveryRead(graph));
  StepGraph reads_more = graph;  // a file the generator's edge does not name
  reads_more.steps.front().inputs.push_back("flags.rsp");
  CHECK_FALSE(NinjaSeesEveryRead(reads_more));
  reads_more.implicit_inputs = {std::string(kProjectDir) + "/flags.rsp"};
  CHECK(NinjaSeesEveryRead(reads_more));
  StepGraph script = graph;  // a -ccbin script, its steps' input: the rewrite's key checks it
  GraphStep& preprocess = script.steps.front();
  preprocess.argv.front() = "/opt/gcc/bin/g++";
  preprocess.inputs.push_back("/opt/gcc/bin/g++");
  CHECK(NinjaSeesEveryRead(script));
  preprocess.inputs.push_back("/opt/gcc/bin/gcc");  // a program it does not run
  CHECK_FALSE(NinjaSeesEveryRead(script));
  StepGraph always = graph;
  always.steps.back().reruns_always = true;
  CHECK_FALSE(NinjaSeesEveryRead(always));
  StepGraph unkept = graph;  // a step's headers that the merge leaves out
  for (GraphStep& step : unkept.steps) step.kept_depfile.clear();
  CHECK_FALSE(NinjaSeesEveryRead(unkept));
  StepGraph empty = Graph("depfile", {}, {"", false});  // Meson 1.0: Ninja is handed no header
  empty.steps.pop_back();
  empty.source = "kernel.cu";
  REQUIRE(HandEmptyDepfileToNinja(empty));
  CHECK_FALSE(NinjaSeesEveryRead(empty));
}

TEST_CASE("-MMD leaves system headers out of the step depfiles") {
  StepGraph graph = Graph("depfile", {}, {"", false});
  for (const GraphStep& step : graph.steps) {
    if (IsPreprocess(step.kind)) CHECK(Contains(step.argv, "-MMD"));
  }
}

TEST_CASE("without -MD no depfile copies are kept") {
  StepGraph graph = Graph("single_arch");
  for (const GraphStep& step : graph.steps) {
    CHECK(step.kept_depfile.empty());
    CHECK(step.kind != StepKind::kFilterDependencies);
  }
}

TEST_CASE("-rdc and -dc compile to an object through the same chain") {
  for (const char* name : {"rdc", "device_c"}) {
    StepGraph graph = Graph(name);
    CHECK(OfKind(graph, StepKind::kCicc).size() == 1);
    CHECK(OfKind(graph, StepKind::kHostCompile).size() == 1);
    CHECK(graph.final_outputs == std::vector<std::string>{"kernel.o"});
  }
}

TEST_CASE("-dlink: nvlink reads the user's object, the host compile the -D named temporaries") {
  StepGraph graph = Graph("dlink", {{std::string(kProjectDir) + "/kernel.o", ""}});
  const GraphStep* nvlink = OfKind(graph, StepKind::kNvlink).front();
  CHECK(Contains(nvlink->inputs, "kernel.o"));
  const GraphStep* host = OfKind(graph, StepKind::kHostCompile).front();
  const GraphStep* fatbinary = OfKind(graph, StepKind::kFatbinary).front();
  CHECK(Contains(host->inputs, fatbinary->outputs.front()));
  CHECK(Waits(*host, IndexOf(graph, nvlink)));  // the .reg.c
  CHECK(graph.final_outputs == std::vector<std::string>{"dlink.o"});
}

TEST_CASE("-ptx and -cubin stop early and write the user's file") {
  StepGraph ptx = Graph("ptx");
  CHECK(ptx.final_outputs == std::vector<std::string>{"kernel.ptx"});
  CHECK(OfKind(ptx, StepKind::kHostCompile).empty());
  StepGraph cubin = Graph("cubin");
  CHECK(cubin.final_outputs == std::vector<std::string>{"kernel.cubin"});
  CHECK(OfKind(cubin, StepKind::kPtxas).size() == 1);
}

TEST_CASE("-G and -x cu split like any compile") {
  StepGraph debug = Graph("debug_G");
  CHECK(OfKind(debug, StepKind::kCicc).size() == 1);
  // ptxas -g writes the mtime and size of the PTX's `.file` sources into the
  // cubin: `fastcuda step` lists them in a depfile of its own.
  const GraphStep* ptxas = OfKind(debug, StepKind::kPtxas).front();
  CHECK(ptxas->line_table_ptx == ptxas->inputs.front());
  CHECK(ptxas->depfile == std::string(kWorkDir) + "/kernel.sm_80.cubin.line-table.d");
  StepGraph plain_graph = Graph("multi_gencode");
  for (const GraphStep* plain : OfKind(plain_graph, StepKind::kPtxas)) {
    CHECK(plain->line_table_ptx.empty());
    CHECK(plain->depfile.empty());
  }
  StepGraph x_cu = Graph("x_cu");
  CHECK(x_cu.final_outputs == std::vector<std::string>{"host.o"});
  CHECK(x_cu.source == "host.cpp");
}

TEST_CASE("--threads: nvcc's capture redirections are dropped, the graph is the same") {
  StepGraph threads = Graph("threads");
  StepGraph plain = Graph("single_arch");
  REQUIRE(threads.steps.size() == plain.steps.size());
  std::multiset<StepKind> a, b;
  for (const GraphStep& step : threads.steps) {
    CHECK(step.redirections.empty());
    a.insert(step.kind);
  }
  for (const GraphStep& step : plain.steps) b.insert(step.kind);
  CHECK(a == b);
}

TEST_CASE("an unknown program runs alone, after everything before it") {
  Transcript transcript = ParseTranscript(
      "#$ gcc -E -x c++ kernel.cu -o /tmp/tmpxft_1_2-3_kernel.cpp4.ii\n"
      "#$ mystery-tool --flag\n"
      "#$ gcc -c -x c++ /tmp/tmpxft_1_2-3_kernel.cpp4.ii -o kernel.o\n",
      [](std::string_view) { return std::nullopt; });
  StepGraph graph = BuildStepGraph(transcript, {kProjectDir, kWorkDir, {}},
                                   FakeFileSystem({{std::string(kProjectDir) + "/kernel.cu", ""}}));
  REQUIRE(graph.steps.size() == 3);
  CHECK(graph.steps[1].kind == StepKind::kUnknown);
  CHECK(graph.steps[1].after == std::vector<size_t>{0});
  CHECK(Waits(graph.steps[2], 1));
}

TEST_CASE("a redirection to a real file is not something FastCuda splits") {
  Transcript transcript =
      ParseTranscript("#$ gcc -c a.cu -o a.o > log.txt\n", [](std::string_view) { return std::nullopt; });
  CHECK_THROWS_AS(BuildStepGraph(transcript, {kProjectDir, kWorkDir, {}}, FakeFileSystem()),
                  UnsupportedTranscript);
}

TEST_CASE("two temporaries with one name keep nvcc's sequence numbers") {
  Transcript transcript = ParseTranscript(
      "#$ gcc -E a.cu -o /tmp/tmpxft_1_2-3_x.ii\n"
      "#$ gcc -E b.cu -o /tmp/tmpxft_1_2-4_x.ii\n",
      [](std::string_view) { return std::nullopt; });
  StepGraph graph = BuildStepGraph(transcript, {kProjectDir, kWorkDir, {}}, FakeFileSystem());
  CHECK(graph.steps[0].outputs == std::vector<std::string>{std::string(kWorkDir) + "/3_x.ii"});
  CHECK(graph.steps[1].outputs == std::vector<std::string>{std::string(kWorkDir) + "/4_x.ii"});
}

TEST_CASE("the source is an input of the steps that name it before it exists (a generator makes it)") {
  const std::string source = std::string(kProjectDir) + "/kernel.cu";
  StepGraph present =
      BuildStepGraph(LoadTranscript("single_arch"), {kProjectDir, kWorkDir}, FakeFileSystem({{source, ""}}));
  StepGraph unknown =
      BuildStepGraph(LoadTranscript("single_arch"), {kProjectDir, kWorkDir}, FakeFileSystem());
  StepGraphOptions options{kProjectDir, kWorkDir};
  options.source = "./kernel.cu";  // named otherwise than in the command
  StepGraph missing = BuildStepGraph(LoadTranscript("single_arch"), options, FakeFileSystem());
  REQUIRE(missing.steps.size() == present.steps.size());
  size_t reading = 0;
  for (size_t i = 0; i < present.steps.size(); ++i) {
    CHECK(missing.steps[i].inputs == present.steps[i].inputs);
    const std::vector<std::string>& inputs = unknown.steps[i].inputs;
    CHECK(std::find(inputs.begin(), inputs.end(), "kernel.cu") == inputs.end());
    reading += std::count(missing.steps[i].inputs.begin(), missing.steps[i].inputs.end(), "kernel.cu");
  }
  CHECK(reading == 2);  // the host and the device preprocessing
}

TEST_CASE("the host compiler's response files are inputs of its steps, their contents part of the command") {
  std::string rsp = std::string(kProjectDir) + "/host.rsp";
  FakeFileSystem disk({{rsp, "-O2"}, {std::string(kProjectDir) + "/kernel.cu", ""}});
  const char* dryrun = "#$ gcc -c -x c++ @host.rsp \"host.cpp\" -o \"host.o\"\n";
  auto key = [&](const std::string& contents) {
    disk.Write(rsp, contents);
    StepGraph built = BuildStepGraph(ParseTranscript(dryrun, [](std::string_view) { return std::nullopt; }),
                                     {kProjectDir, kWorkDir}, disk);
    REQUIRE(built.steps.size() == 1);
    CHECK(Contains(built.steps.front().inputs, rsp));
    return built.steps.front().response_key;
  };
  CHECK_FALSE(key("-O2").empty());
  CHECK(key("-O2") == key("-O2"));
  CHECK(key("-O2") != key("-O3"));
  for (const GraphStep& step : Graph("single_arch").steps) CHECK(step.response_key.empty());
}

TEST_CASE("a host compile of the source itself (nvcc -c x.cpp) lists its headers in a depfile of its own") {
  const char* dryrun = "#$ gcc -D__CUDA_ARCH_LIST__=750 -c -x c++ -D__NVCC__ \"host.cpp\" -o \"host.o\"\n";
  StepGraphOptions options{kProjectDir, kWorkDir};
  options.source = "host.cpp";
  StepGraph graph = BuildStepGraph(ParseTranscript(dryrun, [](std::string_view) { return std::nullopt; }),
                                   options, FakeFileSystem({{std::string(kProjectDir) + "/host.cpp", ""}}));
  REQUIRE(graph.steps.size() == 1);
  const GraphStep& compile = graph.steps.front();
  CHECK(compile.compiles_source);
  CHECK(compile.depfile == std::string(kWorkDir) + "/host.o.d");  // not beside the user's object
  CHECK(Contains(compile.argv, "-MD"));
  CHECK(compile.kept_depfile.empty());
  // The host compile of a CUDA TU reads cudafe++'s output, whose headers its preprocessing lists.
  options.source = "kernel.cu";
  StepGraph cuda = BuildStepGraph(LoadTranscript("single_arch"), options,
                                  FakeFileSystem({{std::string(kProjectDir) + "/kernel.cu", ""}}));
  for (const GraphStep& step : cuda.steps) CHECK_FALSE(step.compiles_source);
}

TEST_CASE("the nvcc command's launcher (ccache) runs the host compile, nothing else") {
  StepGraphOptions options{kProjectDir, kWorkDir};
  options.launchers.nvcc = {"ccache"};
  StepGraph graph = BuildStepGraph(LoadTranscript("single_arch"), options,
                                   FakeFileSystem({{std::string(kProjectDir) + "/kernel.cu", ""}}));
  for (const GraphStep& step : graph.steps) {
    CHECK((step.argv.front() == "ccache") == (step.kind == StepKind::kHostCompile));
  }
}

TEST_CASE("a device launcher runs every cicc, ptxas and fatbinary of every architecture") {
  StepGraphOptions options{kProjectDir, kWorkDir};
  options.launchers.device = {"rexec", "--"};
  StepGraph graph = BuildStepGraph(LoadTranscript("multi_gencode"), options,
                                   FakeFileSystem({{std::string(kProjectDir) + "/kernel.cu", ""}}));
  size_t launched = 0;
  for (const GraphStep& step : graph.steps) {
    bool device =
        step.kind == StepKind::kCicc || step.kind == StepKind::kPtxas || step.kind == StepKind::kFatbinary;
    CHECK((step.argv.size() > 2 && step.argv[0] == "rexec" && step.argv[1] == "--") == device);
    launched += device;
  }
  CHECK(launched == 10);  // the fatbinary of each of four images; the stitch is FastCuda's
}

TEST_CASE("sccache runs cudafe++ where it makes the module id, and the step restores the stub's name") {
  StepGraphOptions options{kProjectDir, kWorkDir};
  options.launchers.device = {"sccache"};
  options.launchers.versions = {{"sccache", "0.16.0"}};
  FakeFileSystem disk({{std::string(kProjectDir) + "/kernel.cu", ""}});
  StepGraph graph = BuildStepGraph(LoadTranscript("single_arch"), options, disk);
  auto cudafe = std::find_if(graph.steps.begin(), graph.steps.end(),
                             [](const GraphStep& step) { return step.kind == StepKind::kCudafe; });
  REQUIRE(cudafe != graph.steps.end());
  CHECK(cudafe->argv.front() == "sccache");
  std::vector<std::string> host_source = FlagValues(cudafe->argv, {"--gen_c_file_name"});
  std::vector<std::string> stub = FlagValues(cudafe->argv, {"--stub_file_name"});
  REQUIRE(host_source.size() == 1);
  REQUIRE(stub.size() == 1);
  CHECK(cudafe->stub_include.host_source == host_source.front());
  CHECK(cudafe->stub_include.stub_name == stub.front());
  options.modes.module_id = ModuleIdMode::kOwn;  // cudafe++ reads FastCuda's id: sccache would not key on it
  for (const GraphStep& step : BuildStepGraph(LoadTranscript("single_arch"), options, disk).steps) {
    if (step.kind != StepKind::kCudafe) continue;
    CHECK(step.argv.front() != "sccache");
    CHECK(step.stub_include.host_source.empty());
  }
}

TEST_CASE("keep_depfiles keeps every preprocess depfile without -MD, for the launcher") {
  StepGraphOptions options{kProjectDir, kWorkDir};
  options.keep_depfiles = true;
  StepGraph graph = BuildStepGraph(LoadTranscript("single_arch"), options,
                                   FakeFileSystem({{std::string(kProjectDir) + "/kernel.cu", ""}}));
  for (const GraphStep& step : graph.steps) {
    CHECK(step.kept_depfile.empty() != IsPreprocess(step.kind));
    CHECK(step.kind != StepKind::kFilterDependencies);
  }
}

namespace {

StepGraph GraphWithModes(const std::string& name, CompileModes modes) {
  StepGraphOptions options{kProjectDir, kWorkDir};
  options.modes = modes;
  return BuildStepGraph(LoadTranscript(name), options,
                        FakeFileSystem({{std::string(kProjectDir) + "/kernel.cu", ""}}));
}

}  // namespace

TEST_CASE("FASTCUDA_MODULE_ID=own: a step writes the id first; cicc waits for it, not for cudafe++") {
  StepGraph graph = GraphWithModes("multi_gencode", {ModuleIdMode::kOwn, {}});
  std::vector<const GraphStep*> writers = OfKind(graph, StepKind::kModuleId);
  REQUIRE(writers.size() == 1);
  const GraphStep* writer = writers.front();
  CHECK(writer->module_id == OwnModuleId(std::string(kProjectDir) + "/kernel.cu", graph.final_outputs));
  const GraphStep* cudafe = OfKind(graph, StepKind::kCudafe).front();
  CHECK_FALSE(HasFlag(cudafe->argv, "--gen_module_id_file"));
  CHECK(FlagValues(cudafe->argv, {"--module_id_file_name"}) == writer->outputs);
  CHECK(Waits(*cudafe, IndexOf(graph, writer)));
  for (const GraphStep* cicc : OfKind(graph, StepKind::kCicc)) {
    CHECK(Contains(cicc->inputs, writer->outputs.front()));
    CHECK(Waits(*cicc, IndexOf(graph, writer)));
    CHECK_FALSE(Waits(*cicc, IndexOf(graph, cudafe)));
  }
  // Everything else is as in nvcc's mode.
  StepGraph nvcc = GraphWithModes("multi_gencode", {});
  CHECK(OfKind(nvcc, StepKind::kModuleId).empty());
  CHECK(graph.steps.size() == nvcc.steps.size() + 1);
}

TEST_CASE("a fixed split gives every cicc and ptxas the threads; nothing else changes") {
  StepGraph graph = GraphWithModes("multi_gencode", {ModuleIdMode::kNvcc, {SplitCompile::Mode::kFixed, 4}});
  StepGraph plain = GraphWithModes("multi_gencode", {});
  REQUIRE(graph.steps.size() == plain.steps.size());
  for (size_t i = 0; i < graph.steps.size(); ++i) {
    const GraphStep& step = graph.steps[i];
    bool splits = step.kind == StepKind::kCicc || step.kind == StepKind::kPtxas;
    std::vector<std::string> expected = plain.steps[i].argv;
    if (splits) expected.insert(expected.end(), {"-split-compile", "4"});
    CHECK(step.argv == expected);
    CHECK(step.split_share == 0);
  }
}

TEST_CASE("auto split leaves the argv alone and tells the step how many chains start together") {
  StepGraph graph = GraphWithModes("multi_gencode", {ModuleIdMode::kNvcc, {SplitCompile::Mode::kAuto, 0}});
  for (const GraphStep& step : graph.steps) {
    bool splits = step.kind == StepKind::kCicc || step.kind == StepKind::kPtxas;
    CHECK(step.split_share == (splits ? 3 : 0));  // three -gencode chains
    CHECK_FALSE(HasSplitCompileFlag(step.argv));
  }
}

TEST_CASE("FASTCUDA_EARLY_HOST=on: the host compile waits for cudafe++, not for fatbinary") {
  CompileModes early;
  early.early_host = true;
  for (const char* name : {"multi_gencode", "rdc"}) {
    CAPTURE(name);
    StepGraph graph = GraphWithModes(name, early);
    std::vector<const GraphStep*> placeholders = OfKind(graph, StepKind::kFatbinPlaceholder);
    std::vector<const GraphStep*> embeds = OfKind(graph, StepKind::kEmbedFatbin);
    REQUIRE(placeholders.size() == 1);
    REQUIRE(embeds.size() == 1);
    const GraphStep* placeholder = placeholders.front();
    const GraphStep* embed = embeds.front();
    const GraphStep* fatbinary = FatbinWriter(graph);
    const GraphStep* host = OfKind(graph, StepKind::kHostCompile).front();
    CHECK(placeholder->fatbin.layout ==
          (std::string(name) == "rdc" ? FatbinLayout::kRelocatable : FatbinLayout::kWhole));
    CHECK(placeholder->outputs.front().ends_with(".early.fatbin.c"));
    CHECK(embed->fatbin.fatbin_c == FlagValues(fatbinary->argv, {"--embedded-fatbin"}).front());
    // fatbinary writes the bytes too, in the file nvcc would name so; the embedding reads both.
    CHECK(fatbinary->fatbin.fatbin_bytes + ".c" == embed->fatbin.fatbin_c);
    CHECK(Contains(fatbinary->outputs, fatbinary->fatbin.fatbin_bytes));
    CHECK(fatbinary->fatbin.layout == placeholder->fatbin.layout);
    CHECK(embed->fatbin.fatbin_bytes == fatbinary->fatbin.fatbin_bytes);
    CHECK(Contains(embed->inputs, embed->fatbin.fatbin_bytes));
    // The stub includes the placeholder: cicc and cudafe++ name it.
    std::string include = std::filesystem::path(placeholder->outputs.front()).filename();
    for (const GraphStep* cicc : OfKind(graph, StepKind::kCicc)) {
      CHECK(FlagValues(cicc->argv, {"--include_file_name"}) == std::vector<std::string>{include});
    }
    CHECK(host->outputs == std::vector<std::string>{embed->fatbin.early_object});
    // cudafe++'s host source is blanked of device code, so device edits leave it the same.
    const GraphStep* cudafe = OfKind(graph, StepKind::kCudafe).front();
    CHECK(cudafe->host_source.ends_with(".cudafe1.cpp"));
    CHECK(Contains(host->inputs, cudafe->host_source));
    CHECK(Contains(host->inputs, placeholder->outputs.front()));
    CHECK(Waits(*host, IndexOf(graph, placeholder)));
    CHECK_FALSE(Waits(*host, IndexOf(graph, fatbinary)));
    CHECK_FALSE(Contains(host->inputs, embed->fatbin.fatbin_c));
    CHECK(Waits(*embed, IndexOf(graph, host)));
    CHECK(Waits(*embed, IndexOf(graph, fatbinary)));
    CHECK(embed->outputs == graph.final_outputs);
    CHECK(FlagValues(embed->argv, {"-o"}) == graph.final_outputs);  // for the slow way
    StepGraph nvcc = GraphWithModes(name, {});
    CHECK(graph.steps.size() == nvcc.steps.size() + 2);
    CHECK(OfKind(nvcc, StepKind::kCudafe).front()->host_source.empty());
    CHECK(OfKind(nvcc, StepKind::kFatbinary).front()->fatbin.fatbin_bytes.empty());
  }
}

TEST_CASE("FASTCUDA_EARLY_HOST=on needs fatbinary's output named in one word, as nvcc writes it") {
  StepGraphOptions options{kProjectDir, kWorkDir};
  options.modes.early_host = true;
  Transcript transcript = LoadTranscript("single_arch");
  for (TranscriptCommand& command : transcript.commands) {
    for (size_t i = 0; i < command.argv.size(); ++i) {
      std::string& word = command.argv[i];
      if (!word.starts_with("--embedded-fatbin=")) continue;
      std::string path = word.substr(word.find('=') + 1);
      word = "--embedded-fatbin";
      command.argv.insert(command.argv.begin() + i + 1, path);
    }
  }
  StepGraph graph =
      BuildStepGraph(transcript, options, FakeFileSystem({{std::string(kProjectDir) + "/kernel.cu", ""}}));
  CHECK(OfKind(graph, StepKind::kEmbedFatbin).empty());
  CHECK(OfKind(graph, StepKind::kFatbinary).size() == 1);
}

TEST_CASE("FASTCUDA_EARLY_HOST=on keeps nvcc's host compile under flags that name files after the object") {
  StepGraphOptions options{kProjectDir, kWorkDir};
  options.modes.early_host = true;
  auto embeds_with = [&](const std::string& host_flag) {
    Transcript transcript = LoadTranscript("single_arch");
    for (TranscriptCommand& command : transcript.commands) {
      bool host_compile = HasFlag(command.argv, "-c") &&
                          std::any_of(command.argv.begin(), command.argv.end(),
                                      [](const std::string& word) { return word.ends_with(".cudafe1.cpp"); });
      if (host_compile) command.argv.push_back(host_flag);
    }
    StepGraph graph =
        BuildStepGraph(transcript, options, FakeFileSystem({{std::string(kProjectDir) + "/kernel.cu", ""}}));
    return !OfKind(graph, StepKind::kEmbedFatbin).empty();
  };
  CHECK(embeds_with("-fPIC"));
  for (const char* flag :
       {"-flto=auto", "-save-temps=obj", "--coverage", "-fprofile-arcs", "-fprofile-use", "-gsplit-dwarf",
        "-fstack-usage", "-fcallgraph-info", "-fdump-tree-all", "-MD", "-MMD"}) {
    CHECK_MESSAGE(!embeds_with(flag), flag);
  }
}

TEST_CASE("FASTCUDA_EARLY_HOST=on leaves calls without a host compile of a fatbin alone") {
  CompileModes early;
  early.early_host = true;
  for (const char* name : {"ptx", "cubin", "dlink"}) {
    CAPTURE(name);
    CHECK(OfKind(GraphWithModes(name, early), StepKind::kEmbedFatbin).empty());
    CHECK(GraphWithModes(name, early).steps.size() == GraphWithModes(name, {}).steps.size());
  }
}

TEST_CASE("a step moved to an earlier index takes every wait along") {
  StepGraph graph;
  for (std::vector<size_t> after : std::vector<std::vector<size_t>>{{}, {0}, {1}, {0}, {2, 3}}) {
    graph.steps.emplace_back().after = after;
    graph.steps.back().outputs = {"s" + std::to_string(graph.steps.size() - 1)};
  }
  REQUIRE(MoveStep(graph, 3, 1));  // s3 waits for s0 only: it may come second
  std::vector<std::string> names;
  for (const GraphStep& step : graph.steps) names.push_back(step.outputs.front());
  CHECK(names == std::vector<std::string>{"s0", "s3", "s1", "s2", "s4"});
  CHECK(graph.steps[1].after == std::vector<size_t>{0});
  CHECK(graph.steps[2].after == std::vector<size_t>{0});
  CHECK(graph.steps[3].after == std::vector<size_t>{2});
  CHECK(graph.steps[4].after == std::vector<size_t>{3, 1});
  // s2, now at 3, waits for s1, now at 2: it has no place at 2 or before.
  CHECK_FALSE(MoveStep(graph, 3, 2));
  CHECK_FALSE(MoveStep(graph, 3, 1));
  CHECK(graph.steps[3].outputs.front() == "s2");
  CHECK_THROWS_AS(static_cast<void>(MoveStep(graph, 1, 3)), std::logic_error);
}

TEST_CASE("a step made to wait for a later one has it moved before it, both indices following") {
  StepGraph graph;
  for (std::vector<size_t> after : std::vector<std::vector<size_t>>{{}, {0}, {0}, {1}}) {
    graph.steps.emplace_back().after = after;
    graph.steps.back().outputs = {"s" + std::to_string(graph.steps.size() - 1)};
  }
  size_t waiting = 1, waited = 2;
  REQUIRE(WaitForMovingItBefore(graph, &waiting, &waited));
  CHECK(waited == 1);
  CHECK(waiting == 2);
  CHECK(graph.steps[waited].outputs.front() == "s2");
  CHECK(graph.steps[waiting].outputs.front() == "s1");
  CHECK(graph.steps[waiting].after == std::vector<size_t>{0, 1});
  CHECK(graph.steps[3].after == std::vector<size_t>{2});  // s3 still waits for s1
  // Already before: only the wait is added, once.
  REQUIRE(WaitForMovingItBefore(graph, &waiting, &waited));
  CHECK(graph.steps[waiting].after == std::vector<size_t>{0, 1});
  // s3 waits for s1: it cannot come before s1.
  size_t s1 = 2, s3 = 3;
  CHECK_FALSE(WaitForMovingItBefore(graph, &s1, &s3));
  CHECK(graph.steps[3].outputs.front() == "s3");
}

TEST_CASE("every producer lists the steps in a topological order") {
  FakeFileSystem files(
      {{std::string(kProjectDir) + "/kernel.cu", ""}, {std::string(kProjectDir) + "/host.cpp", ""}});
  for (const char* name : {"single_arch", "multi_gencode", "ptx_only", "depfile", "rdc", "device_c", "dlink",
                           "debug_G", "ptx", "cubin", "x_cu", "threads"}) {
    for (int variant = 0; variant < 32; ++variant) {
      CAPTURE(name);
      CAPTURE(variant);
      StepGraphOptions options{kProjectDir, kWorkDir, {"obj/kernel.o", true}};
      options.keep_depfiles = variant & 1;  // the launcher's
      if (variant & 2) options.modes.module_id = ModuleIdMode::kOwn;
      options.modes.early_host = variant & 4;
      StepGraph graph = BuildStepGraph(LoadTranscript(name), options, files);
      CHECK(IsTopological(graph));
      if (variant & 8) HandDepfileToNinja(graph);  // fastcuda ninja, the module without launcher builds
      CHECK(IsTopological(graph));
      if (variant & 16) AddWholeCallCache(graph, {"ccache"}, {"nvcc", "-c", "kernel.cu", "-o", "kernel.o"});
      CHECK(IsTopological(graph));
    }
  }
}

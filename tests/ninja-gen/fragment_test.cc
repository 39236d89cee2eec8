#include <doctest/doctest.h>

#include <re2/re2.h>

#include "ninja-gen/fragment.h"
#include "ninja-gen/manifest_parser.h"
#include "src/base/process.h"
#include "src/base/shell_words.h"
#include "src/graph/stubbed_intermediates.h"
#include "src/graph/whole_call_cache.h"
#include "src/graph/work_dir_commands.h"
#include "src/plan/memory_budget.h"
#include "src/plan/step_protocol.h"

#include <algorithm>
#include <filesystem>
#include "tests/test_support.h"

using namespace fastcuda;
using fastcuda::testing::CountMatches;
using fastcuda::testing::FakeFileSystem;
using fastcuda::testing::LoadTranscript;

namespace {

StepGraph GraphIn(const std::string& name, const std::string& cwd, DepfileRequest depfile = {}) {
  return BuildStepGraph(LoadTranscript(name), {cwd, "/b/w dir", depfile},
                        FakeFileSystem({{cwd + "/kernel.cu", ""}}));
}

}  // namespace

TEST_CASE("one edge per sub-command, described by kind, arch and source") {
  StepGraph graph = GraphIn("multi_gencode", "/src");
  FragmentOptions options{"/bin/fastcuda", "/b/w dir/nvcc.env", "/src", ""};
  std::string manifest = SingleGraphManifest(graph, options, {}, "");
  CHECK(CountMatches(manifest, R"((?m)^build )") == static_cast<int>(graph.steps.size()));
  CHECK(CountMatches(manifest, R"(desc = CICC compute_\d+ kernel\.cu)") == 3);
  CHECK(CountMatches(manifest, R"(desc = PTXAS sm_\d+ kernel\.cu)") == 3);
  CHECK(CountMatches(manifest, R"(desc = CPP_DEVICE compute_\d+ kernel\.cu)") == 3);
  CHECK(manifest.find("/tmp/") == std::string::npos);
  CHECK(manifest.find("default kernel.o\n") != std::string::npos);
  CHECK(manifest.find("\nw = /b/w dir\n") != std::string::npos);
  CHECK(manifest.find("build ${w}/") != std::string::npos);  // the work dir through its variable
  CHECK(manifest.find("build /b/w") == std::string::npos);
  CHECK(CountMatches(manifest, R"((?m)^  deps = gcc$)") == 3);  // the preprocess rules, the cache lookup
}

TEST_CASE("the step that writes the object gives it a new mtime on every run; intermediates keep restat's") {
  StepGraph graph = GraphIn("multi_gencode", "/src");
  FragmentOptions options{"/bin/fastcuda", "/b/w dir/nvcc.env", "/src", ""};
  std::string manifest = SingleGraphManifest(graph, options, {}, "");
  CHECK(CountMatches(manifest, "--fresh-outputs") == 1);
  CHECK(CountMatches(
            manifest,
            R"((?m)^build kernel\.o: HOST_CC [^\n]*\n(  [^\n]*\n)*  flags = [^\n]*--fresh-outputs)") == 1);
}

TEST_CASE("object lines: the edge that writes the object is described as CMake's Makefiles describe it") {
  StepGraph graph = GraphIn("multi_gencode", "/src/sub");
  FragmentOptions options{"/bin/fastcuda", "/b/w dir/nvcc.env", "/src/sub", ""};
  options.object_lines_top = "/src";
  std::string manifest = SingleGraphManifest(graph, options, {}, "");
  CHECK(CountMatches(
            manifest,
            R"((?m)^build kernel\.o: HOST_CC [^\n]*\n  desc = Building CUDA object sub/kernel\.o\n)") == 1);
  CHECK(CountMatches(manifest, "desc = Building CUDA object") == 1);
  CHECK(CountMatches(manifest, R"(desc = CICC compute_\d+ kernel\.cu)") == 3);
}

TEST_CASE("rerun_preprocessing: every preprocessing edge waits on a phony that is never up to date") {
  StepGraph graph = GraphIn("multi_gencode", "/src");
  FragmentOptions options{"/bin/fastcuda", "/b/w dir/nvcc.env", "/src", ""};
  CHECK(SingleGraphManifest(graph, options, {}, "").find("always-dirty") == std::string::npos);
  options.rerun_preprocessing = true;
  std::string manifest = SingleGraphManifest(graph, options, {}, "");
  CHECK(CountMatches(manifest,
                     R"((?m)^build [^\n]*: CPP_(HOST|DEVICE) [^\n]*\| [^\n]*\$\{w\}/always-dirty)") == 4);
  CHECK(CountMatches(manifest, R"((?m)^build [^\n]*always-dirty)") == 5);
  CHECK(manifest.find("build ${w}/always-dirty: phony\n") != std::string::npos);
}

TEST_CASE("ptxas with a line table: its depfile on the edge, and rerun where the sources are read anew") {
  StepGraph graph = GraphIn("debug_G", "/src");
  FragmentOptions options{"/bin/fastcuda", "/b/w dir/nvcc.env", "/src", ""};
  std::string manifest = SingleGraphManifest(graph, options, {}, "");
  CHECK(CountMatches(manifest, R"((?m)^  depfile = \$\{w\}/kernel\.sm_80\.cubin\.line-table\.d$)") == 1);
  CHECK(manifest.find("--line-table-ptx") != std::string::npos);
  CHECK(manifest.find("--made-by") != std::string::npos);
  CHECK(CountMatches(manifest, R"((?m)^build [^\n]*: PTXAS [^\n]*always-dirty)") == 0);
  // It learns of every run of the preprocessing before it (the TU was out of
  // date, as nvcc would compile it whole), which touches a stamp for it.
  CHECK(CountMatches(manifest, R"((?m)^build [^\n]*\| [^\n]*\.ran: CPP_DEVICE )") == 1);
  CHECK(CountMatches(manifest, R"((?m)^build [^\n]*: PTXAS [^\n]*\.ran)") == 1);
  CHECK(SingleGraphManifest(GraphIn("multi_gencode", "/src"), options, {}, "").find(".ran") ==
        std::string::npos);
  options.rerun_preprocessing = true;  // the launcher: a source restored with an older mtime
  manifest = SingleGraphManifest(graph, options, {}, "");
  CHECK(CountMatches(manifest, R"((?m)^build [^\n]*: PTXAS [^\n]*always-dirty)") == 1);
}

TEST_CASE("a step that reruns always (nvcc run whole without a depfile) waits on the phony, written once") {
  StepGraph graph = GraphIn("multi_gencode", "/src");
  graph.steps.back().reruns_always = true;
  FragmentOptions options{"/bin/fastcuda", "/b/w dir/nvcc.env", "/src", ""};
  std::string manifest = SingleGraphManifest(graph, options, {}, "");
  CHECK(CountMatches(manifest, R"((?m)^build [^\n]*\| [^\n]*\$\{w\}/always-dirty)") == 1);
  options.rerun_preprocessing = true;
  manifest = SingleGraphManifest(graph, options, {}, "");
  CHECK(CountMatches(manifest, R"((?m)^build [^\n]*\| [^\n]*\$\{w\}/always-dirty)") == 5);
  CHECK(CountMatches(manifest, R"((?m)^build \$\{w\}/always-dirty: phony$)") == 1);
}

TEST_CASE("Ninja evaluates each edge to `fastcuda step`, its outputs and the step's own argv") {
  // Hostile names: spaces, $, quotes, a colon, in the tool, the work dir and the source.
  const std::string work = "/tmp/fastcuda fragment $test's:dir";
  std::string text = fastcuda::testing::TranscriptText("single_arch");
  StepGraph graph =
      BuildStepGraph(ParseTranscript(text, [](std::string_view) { return std::nullopt; }), {"/src", work, {}},
                     FakeFileSystem(std::map<std::string, std::string>{{"/src/kernel.cu", ""}}));
  FragmentOptions options;
  options.fastcuda = "/bin/fast cuda$";
  options.env_file = work + "/nvcc.env";
  options.ninja_cwd = "/src";
  options.memory_log = work + "/memory log";
  std::filesystem::create_directories(work);
  std::string manifest = work + "/build.ninja";
  WriteFileAtomically(manifest, SingleGraphManifest(graph, options, {}, work));
  for (size_t i = 0; i < graph.steps.size(); ++i) {
    const GraphStep& step = graph.steps[i];
    ProcessResult commands =
        RunProcess({{"ninja", "-f", manifest, "-t", "commands", "-s", step.outputs.front()}, work, {}, true});
    REQUIRE(commands.exit_code == 0);
    std::vector<std::string> words = SplitShellWords(commands.stdout_text);
    std::vector<std::string> expected = {"/bin/fast cuda$", "step",
                                         "--env-file",      work + "/nvcc.env",
                                         "--memory-kind",   std::string(StepKindName(step.kind)),
                                         "--rss-log",       work + "/memory log"};
    // cicc, ptxas and fatbinary run in the work dir, which their commands then do not name.
    std::optional<std::vector<std::string>> in_work_dir = CommandInWorkDir(step, work);
    if (in_work_dir) expected.insert(expected.end(), {"--program-dir", work});
    if (!step.depfile.empty()) expected.insert(expected.end(), {"--depfile", step.depfile});
    if (i + 1 == graph.steps.size()) expected.push_back("--fresh-outputs");  // the object's
    if (step.never_keep_incbin) expected.emplace_back("--never-keep-incbin");
    for (const StubbedIntermediate& stubbed : StubbedIntermediates(graph)) {
      if (stubbed.consumer == i) expected.insert(expected.end(), {"--stub-input", stubbed.path});
    }
    for (const std::string& input : InputsThatMayBeStubs(graph, i))
      expected.insert(expected.end(), {"--regenerate-input", input});
    for (const StubbedIntermediate& stubbed : StubbedIntermediates(graph)) {
      if (stubbed.producer == i) expected.insert(expected.end(), {"--stubbed-by-reader", stubbed.path});
    }
    for (const UnreadIntermediate& unread : UnreadIntermediates(graph)) {
      if (unread.producer == i) expected.insert(expected.end(), {"--stub-output", unread.path});
    }
    if (std::string input = MemoryInputOf(step); !input.empty())
      expected.insert(expected.end(), {"--memory-input", input});
    CHECK(std::vector<std::string>(words.begin(), words.begin() + expected.size()) == expected);
    auto dashes = std::find(words.begin(), words.end(), "--");
    REQUIRE(dashes != words.end());
    CHECK(std::vector<std::string>(words.begin() + expected.size(), dashes) == step.outputs);
    CHECK(std::vector<std::string>(dashes + 1, words.end()) == in_work_dir.value_or(step.argv));
    CHECK(std::any_of(dashes, words.end(), [&](const std::string& w) {
            return w.find(work) != std::string::npos;
          }) == !in_work_dir);
  }
  std::filesystem::remove_all(work);
}

TEST_CASE("when Ninja runs elsewhere, relative paths become absolute and steps chdir") {
  StepGraph graph = GraphIn("depfile", "/src", {"obj/kernel.o", true});
  FragmentOptions options{"/bin/fastcuda", "/b/env", "/b", ""};
  std::string manifest = SingleGraphManifest(graph, options, {}, "");
  CHECK(manifest.find("default /src/obj/kernel.o /src/obj/kernel.o.d\n") != std::string::npos);
  CHECK(manifest.find("--cwd /src") != std::string::npos);
  CHECK(manifest.find("--absolute-depfile") != std::string::npos);
  CHECK(manifest.find("build /src/obj/kernel.o.d: DEPFILE") != std::string::npos);
  CHECK(manifest.find("flags = merge-depfiles --cwd /src --target obj/kernel.o --source kernel.cu -o\n") !=
        std::string::npos);
}

TEST_CASE(
    "a graph in a generator's manifest: the object's edge names the depfile Ninja reads, every step waits "
    "for the generator's inputs") {
  StepGraph graph = GraphIn("depfile", "/b", {"obj/kernel.o", true});
  REQUIRE(HandDepfileToNinja(graph));
  graph.implicit_inputs = {"gen/config.h"};
  graph.order_only_inputs = {"cmake_object_order_depends_target_k"};
  std::string manifest = SingleGraphManifest(graph, {"/bin/fastcuda", "/b/env", "/b", ""}, {}, "");
  size_t object = manifest.find("build obj/kernel.o: HOST_CC ");
  REQUIRE(object != std::string::npos);
  std::string edge = manifest.substr(object, manifest.find("\nbuild ", object + 1) - object);
  CHECK(edge.find("  depfile = obj/kernel.o.d\n  deps = gcc\n") != std::string::npos);
  CHECK_MESSAGE(edge.find("--ninja-depfile-from '${w}/ninja-deps.d' --ninja-depfile obj/kernel.o.d") !=
                    std::string::npos,
                edge);
  for (size_t at = manifest.find("\nbuild "); at != std::string::npos;
       at = manifest.find("\nbuild ", at + 1)) {
    std::string line = manifest.substr(at + 1, manifest.find('\n', at + 1) - at - 1);
    if (line.find(": phony") != std::string::npos) continue;
    CHECK_MESSAGE(line.find(" gen/config.h") != std::string::npos, line);
    CHECK_MESSAGE(line.find(" || cmake_object_order_depends_target_k") != std::string::npos, line);
  }
}

TEST_CASE("-MP reaches the step that writes the user's depfile") {
  StepGraph graph = GraphIn("depfile", "/src", {"obj/kernel.o", true, true});
  std::string manifest = SingleGraphManifest(graph, {"/bin/fastcuda", "/b/env", "/b", ""}, {}, "");
  CHECK(manifest.find("flags = merge-depfiles --cwd /src --target obj/kernel.o --phony-targets --source "
                      "kernel.cu -o\n") != std::string::npos);
}

TEST_CASE("pool depths: written as pools the rules use") {
  PoolDepths pools = ParsePoolDepths("cicc=4,PTXAS=8");
  NinjaWriter writer;
  FragmentOptions shared;
  shared.fastcuda = "/bin/fastcuda";
  shared.env_file = "/b/env";
  shared.temp_root = "/b/tmp";
  WriteStepRules(writer, pools, shared);
  CHECK(writer.text().find("fastcuda = /bin/fastcuda\nenv = /b/env\nstep_options = --temp-root /b/tmp\n") ==
        0);
  CHECK(writer.text().find("pool fastcuda_cicc\n  depth = 4\n") != std::string::npos);
  CHECK(writer.text().find("rule CICC\n  command = $fastcuda step --env-file $env --memory-kind CICC "
                           "$step_options $flags $out "
                           "$argv\n  description = $desc\n  restat = 1\n  pool = fastcuda_cicc\n") !=
        std::string::npos);
}

TEST_CASE("pool depths: a pool that several kinds share is declared once") {
  NinjaWriter writer;
  WriteStepRules(writer, WithRemotePools({}, {StepKind::kCicc, StepKind::kPtxas}, {4, 16}),
                 FragmentOptions{});
  const std::string& text = writer.text();
  CHECK(text.find("pool fastcuda_remote\n  depth = 16\n") != std::string::npos);
  CHECK(text.find("pool fastcuda_remote\n", text.find("pool fastcuda_remote\n") + 1) == std::string::npos);
  CHECK(text.find("pool fastcuda_local\n  depth = 4\n") != std::string::npos);
  CHECK(text.find("rule PTXAS\n") < text.find("pool = fastcuda_remote\n", text.find("rule PTXAS\n")));
  CHECK(text.find("rule HOST_CC\n") != std::string::npos);
  CHECK(text.find("pool = fastcuda_local\n", text.find("rule HOST_CC\n")) <
        text.find("rule ", text.find("rule HOST_CC\n") + 1));
}

TEST_CASE("own module id and auto split: fastcuda writes the id, the wrapper picks the threads") {
  StepGraphOptions graph_options{"/src", "/b/w dir"};
  graph_options.modes = {ModuleIdMode::kOwn, {SplitCompile::Mode::kAuto, 0}};
  StepGraph graph =
      BuildStepGraph(LoadTranscript("multi_gencode"), graph_options,
                     FakeFileSystem(std::map<std::string, std::string>{{"/src/kernel.cu", ""}}));
  FragmentOptions options{"/bin/fastcuda", "/b/w dir/nvcc.env", "/src", ""};
  std::string manifest = SingleGraphManifest(graph, options, {}, "");
  // merge-depfiles, write-text and write-fatbin-placeholder
  CHECK(CountMatches(manifest, R"((?m)^  command = \$fastcuda \$flags \$out \$argv$)") == 3);
  CHECK(CountMatches(manifest, R"((?m)^build [^:]+\.module_id: MODULE_ID )") == 1);
  CHECK(CountMatches(manifest, R"(flags = write-text --cwd /src _[0-9a-f]{16}_9_kernel_cu)") == 1);
  CHECK(CountMatches(manifest, R"(--split-auto 3)") == 6);  // 3 cicc + 3 ptxas
}

TEST_CASE("early host: fastcuda writes the placeholder, the wrapper embeds the fatbin") {
  StepGraphOptions graph_options{"/src", "/b/w"};
  graph_options.modes.early_host = true;
  StepGraph graph =
      BuildStepGraph(LoadTranscript("rdc"), graph_options,
                     FakeFileSystem(std::map<std::string, std::string>{{"/src/kernel.cu", ""}}));
  std::string manifest = SingleGraphManifest(graph, {"/bin/fastcuda", "/b/w/nvcc.env", "/src", ""}, {}, "");
  CHECK(
      CountMatches(
          manifest,
          R"((?m)^build \$\{w\}/kernel\.early\.fatbin\.c: FATBIN_PLACEHOLDER .*\n.*\n  flags = write-fatbin-placeholder --cwd /src relocatable$)") ==
      1);
  CHECK(
      CountMatches(
          manifest,
          R"((?m)^build kernel\.o: EMBED_FATBIN \$\{w\}/kernel\.early\.o \$\{w\}/kernel\.fatbin\.c \$\{w\}/kernel\.fatbin )") ==
      1);
  CHECK(CountMatches(manifest, R"(flags = --blank-disabled \$\{w\}/kernel\.cudafe1\.cpp)") == 1);
  CHECK(
      CountMatches(
          manifest,
          R"(--early-object \$\{w\}/kernel\.early\.o --embed-fatbin \$\{w\}/kernel\.fatbin\.c --fatbin-bytes \$\{w\}/kernel\.fatbin --fatbin-layout relocatable)") ==
      1);
  // fatbinary writes the bytes as well, and checks the layout.
  CHECK(CountMatches(manifest,
                     R"((?m)^build \$\{w\}/kernel\.fatbin\.c \$\{w\}/kernel\.fatbin: FATBINARY )") == 1);
  CHECK(
      CountMatches(
          manifest,
          R"((?m)^  flags = --program-dir \$\{w\} --stub-input \$\{w\}/kernel\.sm_80\.cubin --regenerate-input \$\{w\}/kernel\.ptx --fatbin-bytes \$\{w\}/kernel\.fatbin --fatbin-layout relocatable$)") ==
      1);
}

TEST_CASE("a device launcher's steps name their inputs, in the work dir's terms") {
  StepGraphOptions graph_options{"/src", "/b/w dir", {}};
  graph_options.launchers.device = {"remote-run"};
  StepGraph graph =
      BuildStepGraph(LoadTranscript("single_arch"), graph_options, FakeFileSystem({{"/src/kernel.cu", ""}}));
  std::string manifest =
      SingleGraphManifest(graph, FragmentOptions{"/bin/fastcuda", "/b/env", "/src", ""}, {}, "");
  CHECK(
      CountMatches(
          manifest,
          R"(flags = --program-dir '\$\{w\}' --input kernel\.module_id --input kernel\.cpp1\.ii --keep-tmpdir --stub-input '\$\{w\}/kernel\.cpp1\.ii' --stub-output '\$\{w\}/kernel\.cudafe1\.c' --stub-output '\$\{w\}/kernel\.cudafe1\.gpu' --memory-input '\$\{w\}/kernel\.cpp1\.ii'\n)") ==
      1);
  CHECK(
      CountMatches(
          manifest,
          R"(flags = --program-dir '\$\{w\}' --input kernel\.ptx --keep-tmpdir --regenerate-input '\$\{w\}/kernel\.ptx' --stubbed-by-reader '\$\{w\}/kernel\.sm_80\.cubin' --memory-input '\$\{w\}/kernel\.ptx'\n)") ==
      1);
  CHECK(CountMatches(manifest,
                     R"(argv = -- remote-run ptxas [^\n]* kernel\.ptx -o kernel\.sm_80\.cubin\n)") == 1);
  CHECK(CountMatches(manifest, R"(--input)") == 5);  // cicc 2, ptxas 1, fatbinary 2
  // A launcher may start a daemon that outlives the step: it keeps TMPDIR.
  CHECK(CountMatches(manifest, R"(--keep-tmpdir)") == 3);  // cicc, ptxas, fatbinary
}

TEST_CASE("a whole-call cache: the object's and the depfile's edges name only the lookup's dyndep file") {
  StepGraph graph = GraphIn("depfile", "/src", {"obj/kernel.o", true});
  REQUIRE(AddWholeCallCache(
      graph, {"ccache"}, {"nvcc", "-MD", "-MF", "obj/kernel.o.d", "-c", "kernel.cu", "-o", "obj/kernel.o"}));
  // The same graph as its edges would be without the dyndep file.
  StepGraph statically = graph;
  for (GraphStep& step : statically.steps) {
    if (WaitsThroughDyndep(step)) step.cache.dyndep.clear();
  }
  const FragmentOptions options{"/bin/fastcuda", "/b/env", "/src", ""};
  auto read = [&](const StepGraph& g) {
    return ReadManifest(FakeFileSystem({{"/m/build.ninja", SingleGraphManifest(g, options, {}, "")}}),
                        "/m/build.ninja");
  };
  const Manifest manifest = read(graph), without = read(statically);
  auto edge_writing = [](const Manifest& m, const std::string& output) {
    auto edge = std::find_if(m.edges.begin(), m.edges.end(),
                             [&](const ManifestEdge& e) { return e.outputs.front() == output; });
    REQUIRE(edge != m.edges.end());
    return *edge;
  };
  const std::string dyndep = "/b/w dir/cache-dyndep";
  const ManifestEdge lookup = edge_writing(manifest, "/b/w dir/cache-result");
  CHECK(lookup.outputs ==
        std::vector<std::string>{"/b/w dir/cache-result", "/b/w dir/cache-object.o", dyndep});
  std::vector<std::string> flags = SplitShellWords(EvaluateEdgeVariable(manifest, lookup, "flags"));
  flags.insert(flags.end(), {"--", "ccache"});
  StepInvocation call = StepInvocation::Parse(flags);
  CHECK(call.cache.dyndep == dyndep);
  REQUIRE(call.waiters.size() == 2);
  for (const LookupWaiter& waiter : call.waiters) {
    CAPTURE(waiter.output);
    const ManifestEdge edge = edge_writing(manifest, waiter.output),
                       before = edge_writing(without, waiter.output);
    CHECK(edge.inputs.empty());
    CHECK(edge.implicit_inputs == std::vector<std::string>{dyndep, "/b/env"});
    CHECK(edge.bindings.at("dyndep") == dyndep);
    // On a miss all that the edge named of its TU; on a hit what the lookup and the other waiter write.
    std::vector<std::string> named = before.inputs;
    named.insert(named.end(), before.implicit_inputs.begin(), before.implicit_inputs.end() - 1);  // less env
    CHECK(waiter.on_miss == named);
    CHECK(waiter.on_hit.size() == (waiter.output == "obj/kernel.o" ? 2u : 1u));
  }
  // The other steps keep the result as an input: a flip reruns them.
  size_t with_result = 0;
  for (const ManifestEdge& edge : manifest.edges) {
    with_result += std::count(edge.inputs.begin(), edge.inputs.end(), "/b/w dir/cache-result");
  }
  CHECK(with_result == graph.steps.size() - 3);  // all but the lookup and its two waiters
  CHECK(EvaluateEdgeVariable(manifest, edge_writing(manifest, "obj/kernel.o.d"), "flags") ==
        "merge-depfiles --cwd /src --target obj/kernel.o --skip-on-hit '/b/w dir/cache-result' --on-hit "
        "'/b/w dir/cache-object.deps' -o");
}

TEST_CASE("the shared environment file goes through $env, unless the edges bind their own") {
  StepGraph graph = GraphIn("multi_gencode", "/src");
  FragmentOptions options{"/bin/fastcuda", "/b/shared.env", "/src", ""};
  NinjaWriter shared;
  WriteStepEdges(shared, graph, options, "/b/shared.env");
  CHECK(CountMatches(shared.text(), R"((?m)^build [^\n]*\| [^\n]*\$\{env\})") ==
        static_cast<int>(graph.steps.size()));
  options.env_file = "/b/own.env";  // Ninja evaluates an edge's paths where `env` is this one
  NinjaWriter own;
  WriteStepEdges(own, graph, options, "/b/shared.env");
  CHECK(own.text().find("${env}") == std::string::npos);
  CHECK(CountMatches(own.text(), R"((?m)^build [^\n]*\| [^\n]*/b/own\.env)") ==
        static_cast<int>(graph.steps.size()));
}

#include <doctest/doctest.h>

#include <algorithm>

#include <filesystem>
#include <utility>

#include "ninja-gen/global_manifest.h"
#include "src/graph/whole_call_cache.h"
#include "src/nvcc/compile_database.h"
#include "src/plan/global_graph.h"
#include "src/plan/graph_dir.h"
#include "src/plan/step_protocol.h"
#include "src/plan/toolchain_programs.h"
#include "tests/test_support.h"

using namespace fastcuda;
using fastcuda::testing::FakeDryrunRunner;
using fastcuda::testing::FakeFileSystem;
using fastcuda::testing::IsTopological;
using fastcuda::testing::kProjectDir;
using fastcuda::testing::RecordedRunner;
using fastcuda::testing::TranscriptText;

namespace {

CompileDatabase Database(const std::string& extra_flag_for_last = "") {
  CompileDatabase database;
  for (std::string name : {"a", "b", "sub/c", "d"}) {
    CompileEntry entry{"/build",
                       "/src/" + name + ".cu",
                       "obj/" + name + ".o",
                       {"nvcc", "-DX=1", "-c", "/src/" + name + ".cu", "-o", "obj/" + name + ".o"},
                       {}};
    database.entries.push_back(entry);
  }
  if (!extra_flag_for_last.empty()) {
    database.entries.back().nvcc.insert(database.entries.back().nvcc.begin() + 1, extra_flag_for_last);
  }
  return database;
}

const GraphStep& HostCompile(const StepGraph& graph) {
  for (const GraphStep& step : graph.steps) {
    if (step.kind == StepKind::kHostCompile) return step;
  }
  throw std::logic_error("no host compile");
}

/// Manifest options for graphs planned into `out_dir`, run by /bin/fastcuda.
GlobalManifestOptions ManifestOptions(const std::string& out_dir) {
  GlobalManifestOptions options;
  options.out_dir = out_dir;
  options.fastcuda = "/bin/fastcuda";
  return options;
}

/// The database planned as a part of a generator's manifest that Ninja runs
/// in /build (`fastcuda ninja`), and the options to write it so.
std::pair<GlobalPlan, GlobalManifestOptions> PartOfManifest() {
  FakeDryrunRunner runner;
  DryrunCache cache;
  GlobalPlan plan = PlanCompileDatabase(Database(), {"/build/.fastcuda", 2}, cache, runner, FakeFileSystem());
  GlobalManifestOptions options = ManifestOptions("/build/.fastcuda");
  options.part_of_manifest_in = "/build";
  return {std::move(plan), std::move(options)};
}

}  // namespace

TEST_CASE("one dryrun per command shape, confirmed by a second TU, instantiated for the rest") {
  FakeDryrunRunner runner;
  DryrunCache cache;
  GlobalPlan plan = PlanCompileDatabase(Database(), {"/out", 2}, cache, runner, FakeFileSystem());
  CHECK(plan.shapes == 1);
  CHECK(plan.dryruns_run == 2);
  CHECK(runner.calls == 2);
  CHECK(cache.size() == 2);
  REQUIRE(plan.graphs.size() == 4);
  CHECK(plan.whole_nvcc_entries.empty());
  CHECK(plan.nvcc_programs == std::vector<std::string>{"/cuda/bin/nvcc"});
  for (size_t i = 0; i < 4; ++i) {
    const StepGraph& graph = plan.graphs[i];
    CHECK(graph.final_outputs == std::vector<std::string>{Database().entries[i].output});
    CHECK(graph.cwd == "/build");
    CHECK(graph.work_dir.rfind("/out/tu/", 0) == 0);
    std::string stem = std::filesystem::path(Database().entries[i].file).stem().string();
    CHECK(HostCompile(graph).argv[4] == graph.work_dir + "/" + stem + ".cudafe1.cpp");
  }
  // The instantiated graph equals the one a real dryrun of that TU gives.
  FakeDryrunRunner direct;
  DryrunCache fresh;
  CompileDatabase only_c;
  only_c.entries = {Database().entries[2]};
  StepGraph real = PlanCompileDatabase(only_c, {"/out", 1}, fresh, direct, FakeFileSystem()).graphs[0];
  REQUIRE(real.steps.size() == plan.graphs[2].steps.size());
  for (size_t i = 0; i < real.steps.size(); ++i) CHECK(real.steps[i].argv == plan.graphs[2].steps[i].argv);
}

TEST_CASE("regeneration takes dryruns from the cache; unused entries are dropped") {
  FakeDryrunRunner runner;
  DryrunCache cache{{"stale", "#$ old\n"}};
  PlanCompileDatabase(Database(), {"/out", 2}, cache, runner, FakeFileSystem());
  CHECK_FALSE(cache.count("stale"));
  GlobalPlan again = PlanCompileDatabase(Database(), {"/out", 2}, cache, runner, FakeFileSystem());
  CHECK(again.dryruns_run == 0);
  CHECK(again.dryruns_cached == 2);
  CHECK(runner.calls == 2);
  // One entry's flags change: one new shape, one more dryrun.
  GlobalPlan changed =
      PlanCompileDatabase(Database("-DCHANGED"), {"/out", 2}, cache, runner, FakeFileSystem());
  CHECK(changed.shapes == 2);
  CHECK(changed.dryruns_run == 1);
}

TEST_CASE("an edited response file and a changed toolchain environment plan anew") {
  FakeDryrunRunner runner;
  DryrunCache cache;
  CompileDatabase database = Database();
  for (CompileEntry& entry : database.entries) entry.nvcc.insert(entry.nvcc.begin() + 1, "@inc.rsp");
  GlobalPlanOptions options{"/out", 2};
  auto plan = [&](const std::string& response_file) {
    return PlanCompileDatabase(
        database, options, cache, runner,
        FakeFileSystem(std::map<std::string, std::string>{{"/build/inc.rsp", response_file}}));
  };
  GlobalPlan first = plan("-IincA");
  CHECK(first.response_files == std::vector<std::string>{"/build/inc.rsp"});
  CHECK(plan("-IincA").dryruns_run == 0);
  CHECK(plan("-IincB").dryruns_run == 2);
  options.environment = {{"CPATH", "/inc2"}, {"HOME", "/root"}};
  GlobalPlan moved = plan("-IincB");
  CHECK(moved.dryruns_run == 2);
  CHECK(moved.graphs[0].environment.at("CPATH") == "/inc2");
  CHECK_FALSE(moved.graphs[0].environment.count("HOME"));
  options.environment["PTXAS_FLAGS"] = "-O0";  // nvcc.profile appends it to ptxas's command
  CHECK(plan("-IincB").dryruns_run == 2);
}

TEST_CASE("a host compiler changed behind its name plans anew, and its steps' environment changes") {
  FakeDryrunRunner runner;
  DryrunCache cache;
  CompileDatabase database = Database();
  database.entries[3].nvcc.insert(database.entries[3].nvcc.begin() + 1, {"-ccbin", "tools/c++"});
  GlobalPlanOptions options{"/out", 2};
  GlobalPlan first = PlanCompileDatabase(database, options, cache, runner, FakeFileSystem());
  CHECK(first.programs.at("gcc").stamp == "1");
  CHECK(first.programs.count("/build/tools/c++"));
  CHECK(first.programs.count("nvcc"));
  CHECK(first.graphs[0].environment.at(kHostCompilerVariable) == "/cuda/bin/gcc 1");
  CHECK(PlanCompileDatabase(database, options, cache, runner, FakeFileSystem()).dryruns_run == 0);
  runner.stamps["/build/tools/c++"] = "2";  // switched: only the entry that names it plans anew
  GlobalPlan switched = PlanCompileDatabase(database, options, cache, runner, FakeFileSystem());
  CHECK(switched.dryruns_run == 1);
  CHECK(switched.graphs[3].environment.at(kHostCompilerVariable) == "/cuda/bin//build/tools/c++ 2");
  CHECK(switched.graphs[0].environment == first.graphs[0].environment);
}

TEST_CASE("PATH's text keys nothing: the steps' PATH goes on with the build's, its programs are keyed") {
  FakeDryrunRunner runner;
  DryrunCache cache;
  GlobalPlanOptions options{"/out", 2};
  FakeFileSystem fs({{"/cuda/bin/cudafe++", ""}});  // nvcc's directory, first on the steps' PATH
  auto plan_with = [&](const std::string& path) {
    runner.path_after = path;
    options.environment = {{"PATH", path}};
    return PlanCompileDatabase(Database(), options, cache, runner, fs);
  };
  GlobalPlan first = plan_with("/usr/bin");
  CHECK(first.graphs[0].environment.at("PATH") == "/cuda/bin:$PATH");
  CHECK(first.graphs[0].environment.at(kPathProgramsVariable) == "as=/cuda/bin/as 1\ngcc=/cuda/bin/gcc 1\n");
  CHECK(first.programs.count("as"));
  // A virtual environment's activation: the same programs, the same dryruns and steps.
  GlobalPlan activated = plan_with("/venv/bin:/usr/bin");
  CHECK(activated.dryruns_run == 0);
  for (size_t i = 0; i < first.graphs.size(); ++i)
    CHECK(activated.graphs[i].environment == first.graphs[i].environment);
  // An assembler found elsewhere: the steps' environment changes, so they run.
  runner.stamps["as"] = "2";
  GlobalPlan other = plan_with("/tools:/usr/bin");
  CHECK(other.dryruns_run == 0);  // the dryrun does not run it
  CHECK(other.graphs[0].environment.at(kPathProgramsVariable) == "as=/cuda/bin/as 2\ngcc=/cuda/bin/gcc 1\n");
}

/// Four TUs with depfiles next to their objects, as `form` writes them.
std::string DatabaseAs(const std::string& form) {
  std::string text = "[";
  for (std::string name : {"a", "b", "c", "d"}) {
    std::string object = "obj/" + name + ".o";
    std::string output = form == "cmake-3.26"   ? "\"output\": \"/build/" + object + "\", "
                         : form == "cmake-3.25" ? ""
                                                : "\"output\": \"" + object + "\", ";
    text += std::string(name == "a" ? "" : ",") + "{\"directory\": \"/build\", \"file\": \"/src/" + name +
            ".cu\", " + output + "\"command\": \"nvcc -DX=1 -MD -MT " + object + " -MF " + object +
            ".d -c /src/" + name + ".cu -o " + object + "\"}";
  }
  return text + "]";
}

TEST_CASE("databases as CMake 3.25, CMake 3.26+ (absolute output), Meson and ninja -t compdb: one shape") {
  for (std::string form : {"cmake-3.25", "cmake-3.26", "meson", "ninja-compdb"}) {
    CAPTURE(form);
    CompileDatabase database = ParseCompileDatabase(DatabaseAs(form), "db.json", "/build");
    REQUIRE(database.entries.size() == 4);
    FakeDryrunRunner runner;
    DryrunCache cache;
    GlobalPlan plan = PlanCompileDatabase(database, {"/out", 2}, cache, runner, FakeFileSystem());
    CHECK(plan.shapes == 1);
    CHECK(plan.dryruns_run == 2);
    // The instantiated TU names its own object and depfile, as its own dryrun would.
    const std::vector<std::string>& preprocess = plan.graphs[2].steps.front().argv;
    CHECK(std::count(preprocess.begin(), preprocess.end(), "obj/c.o") == 1);
    CHECK(std::count(preprocess.begin(), preprocess.end(), "obj/c.o.d") == 1);
  }
}

TEST_CASE("a shape whose substitution is not exact gets one dryrun per TU") {
  FakeDryrunRunner runner(/*quirky=*/true);
  DryrunCache cache;
  GlobalPlan plan = PlanCompileDatabase(Database(), {"/out", 2}, cache, runner, FakeFileSystem());
  CHECK(plan.dryruns_run == 4);  // 2 representatives, then the 2 others
  CHECK(runner.calls == 4);
  CHECK(HostCompile(plan.graphs[2]).argv.back() == "obj/sub/c.o");
}

TEST_CASE("an entry FastCuda does not split runs nvcc whole, in the same graph") {
  CompileDatabase database = Database();
  database.entries[1].nvcc.push_back("-E");
  FakeDryrunRunner runner;
  DryrunCache cache;
  GlobalPlanOptions options{"/out", 2};
  options.environment = {{"PTXAS_FLAGS", "-O0"}, {"HOME", "/root"}};
  GlobalPlan plan = PlanCompileDatabase(database, options, cache, runner, FakeFileSystem());
  REQUIRE(plan.whole_nvcc_entries.size() == 1);
  CHECK(plan.whole_nvcc_entries[0].find("/src/b.cu: nvcc option -E") == 0);
  // What nvcc reads from the environment is its step's too: a change reruns it.
  CHECK(plan.graphs[1].environment ==
        std::map<std::string, std::string>{
            {"PTXAS_FLAGS", "-O0"},
            {kHostCompilerVariable, "/cuda/bin/gcc 1"},
            {kPathProgramsVariable, "as=/cuda/bin/as 1\nnvcc=/cuda/bin/nvcc 1\n"}});
  REQUIRE(plan.graphs[1].steps.size() == 1);
  CHECK(plan.graphs[1].steps[0].argv == database.entries[1].nvcc);
  CHECK(plan.graphs[1].final_outputs == std::vector<std::string>{"obj/b.o"});
  // Preprocessing only: nvcc can name no depfile, so it runs in every build.
  CHECK(plan.graphs[1].steps[0].reruns_always);
  CHECK(plan.graphs[1].steps[0].inputs == std::vector<std::string>{"/src/b.cu"});
}

TEST_CASE("nvcc run whole reads its source, response files and the headers of a depfile it is asked for") {
  CompileDatabase database = Database();
  database.entries[1].nvcc = {"nvcc", "-lib", "@flags.rsp", "/src/b.cu", "-o", "obj/b.a"};
  database.entries[1].output = "obj/b.a";
  FakeDryrunRunner runner;
  DryrunCache cache;
  GlobalPlan plan = PlanCompileDatabase(database, {"/out", 2}, cache, runner,
                                        FakeFileSystem({{"/build/flags.rsp", "-DY=2"}}));
  REQUIRE(plan.whole_nvcc_entries.size() == 1);
  CHECK(plan.whole_nvcc_entries[0] == "/src/b.cu: nvcc option -lib");
  const GraphStep& step = plan.graphs[1].steps.at(0);
  CHECK_FALSE(step.reruns_always);
  CHECK(step.inputs == std::vector<std::string>{"/src/b.cu", "/build/flags.rsp"});
  REQUIRE(!step.depfile.empty());
  std::vector<std::string> asked(step.argv.end() - 3, step.argv.end());
  CHECK(asked == std::vector<std::string>{"-MD", "-MF", step.depfile});
  CHECK(step.outputs == std::vector<std::string>{"obj/b.a", step.depfile});
  CHECK(plan.graphs[1].final_outputs == std::vector<std::string>{"obj/b.a"});
}

TEST_CASE("nvcc run whole: asked for a depfile where it compiles one file, the user's where it writes one") {
  using Source = WholeNvccDepfile::Source;
  CHECK(WholeNvccDepfileOf({"-c", "a.cu", "-o", "a.o"}).source == Source::kAsked);
  CHECK(WholeNvccDepfileOf({"--lib", "-I", "inc", "a.cu", "-o", "a.a"}).source == Source::kAsked);
  for (const char* own : {"-MD", "-MMD", "--generate-dependencies-with-compile"}) {
    WholeNvccDepfile users = WholeNvccDepfileOf({"-c", own, "-MF", "obj/a.d", "a.cu", "-o", "a.o"});
    CHECK(users.source == Source::kUsers);
    CHECK(users.users == "obj/a.d");
  }
  CHECK(WholeNvccDepfileOf({"-c", "-MD", "a.cu", "-o", "a.o"}).source == Source::kNone);  // a name nvcc picks
  CHECK(WholeNvccDepfileOf({"-lib", "a.cu", "b.cu", "-o", "ab.a"}).source ==
        Source::kNone);  // each one's replaces the last's
  CHECK(WholeNvccDepfileOf({"-lib", "a.cu", "o.o", "-o", "ab.a"}).source == Source::kNone);
  CHECK(WholeNvccDepfileOf({"-dlink", "a.o", "-o", "link.o"}).source == Source::kNone);
  CHECK(WholeNvccDepfileOf({"a.o", "-o", "app"}).source == Source::kNone);
  CHECK(WholeNvccDepfileOf({"-c", "-x", "cu", "-", "-o", "a.o"}).source == Source::kNone);
  CHECK(NvccInputWords({"-x", "cu", "-Xcompiler", "-fPIC", "a.cu", "-o", "a.o", "b.o", "-MF", "a.d"}) ==
        std::vector<std::string>{"a.cu", "b.o"});
}

TEST_CASE("nvcc run whole reads every input file it names that exists, its source whether it exists or not") {
  CompileDatabase database = Database();
  database.entries[1].nvcc = {"nvcc",    "-lib",       "/src/b.cu", "/src/c.cu",
                              "lib/o.o", "lib/gone.o", "-o",        "obj/b.a"};
  database.entries[1].output = "obj/b.a";
  FakeDryrunRunner runner;
  DryrunCache cache;
  GlobalPlan plan = PlanCompileDatabase(database, {"/out", 2}, cache, runner,
                                        FakeFileSystem({{"/src/c.cu", ""}, {"/build/lib/o.o", ""}}));
  const GraphStep& lib = plan.graphs[1].steps.at(0);
  CHECK(lib.inputs == std::vector<std::string>{"/src/b.cu", "/src/c.cu", "lib/o.o"});
  CHECK(lib.reruns_always);  // two sources: nvcc's depfile would name one
  CHECK(lib.depfile.empty());
}

TEST_CASE("nvcc run whole that writes the user's depfile: Ninja reads FastCuda's absolute copy of it") {
  CompileDatabase database = Database();
  database.entries[1].nvcc = {"nvcc", "-lib", "-MD", "-MF", "obj/b.a.d", "/src/b.cu", "-o", "obj/b.a"};
  database.entries[1].output = "obj/b.a";
  FakeDryrunRunner runner;
  DryrunCache cache;
  GlobalPlan plan = PlanCompileDatabase(database, {"/out", 2}, cache, runner, FakeFileSystem());
  const GraphStep& step = plan.graphs[1].steps.at(0);
  CHECK_FALSE(step.reruns_always);
  CHECK(step.argv == database.entries[1].nvcc);  // nothing added: nvcc writes the user's depfile
  CHECK(step.depfile_from == "obj/b.a.d");
  CHECK(step.outputs == std::vector<std::string>{"obj/b.a", step.depfile});
}

TEST_CASE("an entry that reads its source from standard input runs nvcc whole, without a dryrun") {
  CompileDatabase database = Database();
  database.entries[1].nvcc = {"nvcc", "-x", "cu", "-c", "-", "-o", "obj/b.o"};
  FakeDryrunRunner runner;
  DryrunCache cache;
  GlobalPlan plan = PlanCompileDatabase(database, {"/out", 2}, cache, runner, FakeFileSystem());
  REQUIRE(plan.whole_nvcc_entries.size() == 1);
  CHECK(plan.whole_nvcc_entries[0] ==
        "/src/b.cu: the source is standard input (-) (in every build: it can write no depfile)");
  CHECK(plan.graphs[1].steps[0].reruns_always);
  CHECK(plan.graphs[1].steps[0].argv == database.entries[1].nvcc);
  CHECK(runner.calls == 2);  // the other three share one shape
}

TEST_CASE("the global manifest: regeneration edge, every TU's edges, longest first") {
  FakeDryrunRunner runner;
  DryrunCache cache;
  GlobalPlan plan = PlanCompileDatabase(Database(), {"/out", 2}, cache, runner, FakeFileSystem());
  GlobalManifestOptions options = ManifestOptions("/out");
  options.regenerate_command = {"/bin/fastcuda", "gen", "--compdb", "/build/db.json", "--out", "/out"};
  options.regenerate_inputs = {"/build/db.json", "/bin/fastcuda", "/cuda/bin/nvcc"};
  // History says d.cu's chain is the longest.
  options.history = {{"/build/obj/d.o", 90000}};
  std::map<std::string, std::string> files = GlobalManifestFiles(plan.graphs, options);
  const std::string& top = files.at("/out/build.ninja");
  CHECK(top.find("build build.ninja: FASTCUDA_REGENERATE | /build/db.json /bin/fastcuda /cuda/bin/nvcc\n") !=
        std::string::npos);
  CHECK(top.find("  generator = 1\n") != std::string::npos);
  CHECK(top.find("build all: phony /build/obj/") != std::string::npos);
  CHECK(top.find("default all\n") != std::string::npos);
  size_t first_tu = top.find("# steps of ");
  REQUIRE(first_tu != std::string::npos);
  CHECK(top.substr(first_tu, top.find('\n', first_tu) - first_tu) == "# steps of /src/d.cu");
  CHECK(top.find("CPP_HOST /src/a.cu") != std::string::npos);
  // The sources exist nowhere yet: a phony edge each, so that a missing one
  // fails only its TU's steps, not Ninja's whole run.
  for (std::string name : {"a", "b", "sub/c", "d"}) {
    CHECK(top.find("\nbuild /src/" + name + ".cu: phony\n") != std::string::npos);
  }
  // build.ninja, steps.json, the one environment all TUs share, and no lookup pass
  REQUIRE(files.size() == 4);
  CHECK(files.count("/out/steps.json"));
  CHECK(std::next(files.begin())->first.rfind("/out/env/", 0) == 0);
  CHECK(files.at("/out/lookup-pass").empty());
}

TEST_CASE("step times count when a step that others wait for has one, not an object alone") {
  FakeDryrunRunner runner;
  DryrunCache cache;
  GlobalPlan plan = PlanCompileDatabase(Database(), {"/out", 2}, cache, runner, FakeFileSystem());
  GlobalManifestOptions options = ManifestOptions("/out");
  CHECK_FALSE(HistoryHasStepTimes(plan.graphs, options));
  options.history = {{"/build/obj/d.o", 20000}, {"build.ninja", 40}};
  CHECK_FALSE(HistoryHasStepTimes(plan.graphs, options));
  const StepGraph& graph = plan.graphs[1];
  const std::string waited_for = graph.steps[graph.steps.back().after.front()].outputs.front();
  options.history = {{waited_for, 900}};
  CHECK(HistoryHasStepTimes(plan.graphs, options));
}

TEST_CASE("planning and writing on many threads give what one thread gives") {
  FakeDryrunRunner runner;
  CompileDatabase database;
  for (int i = 0; i < 40; ++i) {  // two shapes
    std::string name = std::to_string(i);
    name.insert(0, 1, 't');
    database.entries.push_back(
        {"/build",
         "/src/" + name + ".cu",
         "obj/" + name + ".o",
         {"nvcc", i % 3 ? "-DX=1" : "-DX=2", "-c", "/src/" + name + ".cu", "-o", "obj/" + name + ".o"},
         {}});
  }
  auto generate = [&](unsigned threads) {
    DryrunCache cache;
    GlobalPlan plan = PlanCompileDatabase(database, {"/out", threads}, cache, runner, FakeFileSystem());
    GlobalManifestOptions options = ManifestOptions("/out");
    options.jobs = threads;
    options.history = {{"/build/obj/t3.o", 90000}};
    return GlobalManifestFiles(plan.graphs, options);
  };
  std::map<std::string, std::string> one = generate(1);
  CHECK(one.at("/out/build.ninja").find("# steps of /src/t3.cu\n") <
        one.at("/out/build.ninja").find("/src/t0.cu"));
  CHECK(one.at("/out/build.ninja").find("/build/obj/t39.o") != std::string::npos);
  CHECK(generate(8) == one);
}

TEST_CASE(
    "the graph as a part of a generator's manifest: steps.ninja, paths as that manifest's Ninja names them") {
  auto [plan, options] = PartOfManifest();
  options.manifest_has_defaults = true;
  options.priority_ladder = true;
  options.history = {{"obj/d.o", 90000}};
  std::map<std::string, std::string> files = GlobalManifestFiles(plan.graphs, options);
  CHECK_FALSE(files.count("/build/.fastcuda/build.ninja"));
  const std::string& steps = files.at("/build/.fastcuda/steps.ninja");
  CHECK(steps.find("FASTCUDA_REGENERATE") == std::string::npos);
  CHECK(steps.find("build all:") == std::string::npos);
  CHECK(steps.find("\nbuild obj/d.o: HOST_CC ") != std::string::npos);  // relative, as the generator named it
  CHECK(steps.find(": phony\n") == std::string::npos);  // the generator's manifest makes or names the sources
  CHECK(steps.find("\ndefault /build/.fastcuda/priority/rung") != std::string::npos);
  CHECK(files.at("/build/.fastcuda/priority/rung1").empty());  // the generation's, so that Ninja runs no rung
  options.manifest_has_defaults = false;  // Ninja builds every root, the rungs among them
  CHECK(GlobalManifestFiles(plan.graphs, options).at("/build/.fastcuda/steps.ninja").find("\ndefault ") ==
        std::string::npos);
}

TEST_CASE("as a part of a generator's manifest, each TU's steps name its edge there when they fail") {
  auto [plan, options] = PartOfManifest();
  for (size_t i = 0; i < plan.graphs.size(); ++i) {
    options.failure_notes.push_back(
        {"obj/" + std::to_string(i) + ".o", "nvcc -c " + std::to_string(i), true});
  }
  std::map<std::string, std::string> files = GlobalManifestFiles(plan.graphs, options);
  const std::string notes = files.at(FailureNotesPath("/build/.fastcuda"));
  for (size_t i = 0; i < plan.graphs.size(); ++i) {
    std::optional<FailureNote> note = FindFailureNote(notes, plan.graphs[i].work_dir);
    REQUIRE(note);
    CHECK(note->object == options.failure_notes[i].object);
    CHECK(note->exit_code_shown);
  }
  const std::string& steps = files.at("/build/.fastcuda/steps.ninja");
  CHECK(steps.find("--failure-note ${w} ") != std::string::npos);
  CHECK(steps.find("--failure-notes /build/.fastcuda/failed-edges") != std::string::npos);
  options.failure_notes.clear();  // fastcuda build's graph: its Ninja prints the steps' own lines
  CHECK(GlobalManifestFiles(plan.graphs, options).at("/build/.fastcuda/steps.ninja").find("--failure-note") ==
        std::string::npos);
}

TEST_CASE("each entry's own launcher, and the host launcher over it, run its host compile") {
  CompileDatabase database = Database();
  database.entries[1].launcher = {"ccache"};
  FakeDryrunRunner runner;
  DryrunCache cache;
  GlobalPlanOptions options{"/out", 2};
  GlobalPlan plan = PlanCompileDatabase(database, options, cache, runner, FakeFileSystem());
  CHECK(HostCompile(plan.graphs[0]).argv.front() == "gcc");
  CHECK(HostCompile(plan.graphs[1]).argv.front() == "ccache");
  options.launchers.host = {"distcc"};
  plan = PlanCompileDatabase(database, options, cache, runner, FakeFileSystem());
  CHECK(HostCompile(plan.graphs[0]).argv.front() == "distcc");
  CHECK(HostCompile(plan.graphs[1]).argv.front() == "distcc");
}

TEST_CASE("an edge with deps = gcc under ccache: both producers keep the steps, and steps.json's, in order") {
  const std::vector<std::string> nvcc = {"nvcc", "-c",  "kernel.cu",    "-o",  "obj/kernel.o",  "-arch=sm_80",
                                         "-MD",  "-MT", "obj/kernel.o", "-MF", "obj/kernel.o.d"};
  CompileEntry entry{kProjectDir, "kernel.cu", "obj/kernel.o", nvcc, {"ccache"}};
  entry.ninja_reads_depfile = true;  // as `fastcuda ninja` reads CMake's and Meson's edges
  CompileDatabase database;
  database.entries = {entry};
  RecordedRunner runner(TranscriptText("depfile"));
  DryrunCache cache;
  GlobalPlan plan = PlanCompileDatabase(database, {"/out", 1}, cache, runner,
                                        FakeFileSystem({{std::string(kProjectDir) + "/kernel.cu", ""}}));
  REQUIRE(plan.whole_nvcc_entries.empty());
  const StepGraph& graph = plan.graphs.front();
  CHECK(graph.steps.front().kind == StepKind::kCacheLookup);
  CHECK(HostCompile(graph).ninja_depfile == "obj/kernel.o.d");
  CHECK(IsTopological(graph));
  std::map<std::string, std::string> files = GlobalManifestFiles(plan.graphs, ManifestOptions("/out"));
  CHECK(ParseStepsFile(files.at("/out/steps.json")).front().steps.size() == graph.steps.size());
}

TEST_CASE(
    "before any lookup ran, each lookup's dyndep file and the ladder's read as if every lookup missed") {
  CompileDatabase database = Database();
  for (CompileEntry& entry : database.entries) entry.launcher = {"ccache"};
  FakeDryrunRunner runner;
  DryrunCache cache;
  GlobalPlanOptions planning{"/out", 2};
  planning.keep_depfiles = true;  // the headers a lookup's miss stores with the object
  GlobalPlan plan = PlanCompileDatabase(database, planning, cache, runner, FakeFileSystem());
  GlobalManifestOptions options = ManifestOptions("/out");
  options.priority_ladder = true;
  options.history = {{"/build/obj/d.o", 90000}, {"/build/obj/a.o", 1000}};
  std::map<std::string, std::string> files = GlobalManifestFiles(plan.graphs, options);
  std::map<std::string, DryRunFile> dry = DryRunDyndepFiles(plan.graphs, options, files);
  for (const StepGraph& graph : plan.graphs) {
    const GraphStep* lookup = CacheLookupOf(graph);
    REQUIRE(lookup);
    const DryRunFile& file = dry.at(lookup->cache.dyndep);
    const std::string& text = file.text;
    REQUIRE(file.kept_if.size() == 1);  // a hit's text: what the last build's lookup may have written
    CHECK(file.kept_if.front().find(".cudafe1.cpp") == std::string::npos);
    CHECK_FALSE(file.keeps_any);
    CHECK(text.starts_with("ninja_dyndep_version = 1\n"));
    // On a miss the object waits for the host compile's input, the steps' .cudafe1.cpp.
    CHECK(text.find(".cudafe1.cpp") != std::string::npos);
    CHECK(files.count(lookup->cache.dyndep) == 0);  // the lookup's to write, not the generation's
  }
  REQUIRE(files.count("/out/priority/dyndep-plan.json"));
  const std::string ladder = dry.at("/out/priority/dyndep").text;
  CHECK(dry.at("/out/priority/dyndep").keeps_any);
  for (std::string name : {"a", "b", "sub/c", "d"}) {
    CHECK(ladder.find(" /build/obj/" + name + ".o") !=
          std::string::npos);  // a rung waits for each TU's steps
  }
  CHECK(dry.size() == plan.graphs.size() + 1);
}

TEST_CASE("steps.json marks the TUs that a generator's defaults do not need") {
  auto [plan, options] = PartOfManifest();
  options.not_by_default = {"obj/b.o"};
  std::vector<RecordedTu> tus =
      ParseStepsFile(GlobalManifestFiles(plan.graphs, options).at("/build/.fastcuda/steps.json"));
  REQUIRE(tus.size() == 4);
  for (const RecordedTu& tu : tus) CHECK(tu.on_request == (tu.source == "/src/b.cu"));
}

TEST_CASE("a file that one TU's nvcc writes and another TU reads gets no phony edge: its writer makes it") {
  CompileDatabase database;
  // The writer spells the file otherwise than the reader: Ninja makes them one node.
  database.entries.push_back({"/build",
                              "/src/a.cu",
                              "/build/sub/../gen.cu",
                              {"nvcc", "-E", "/src/a.cu", "-o", "/build/sub/../gen.cu"},
                              {}});
  database.entries.push_back(
      {"/build", "/build/gen.cu", "obj/gen.o", {"nvcc", "-c", "/build/gen.cu", "-o", "obj/gen.o"}, {}});
  FakeDryrunRunner runner;
  DryrunCache cache;
  GlobalPlan plan = PlanCompileDatabase(database, {"/out", 2}, cache, runner, FakeFileSystem());
  REQUIRE(plan.whole_nvcc_entries.size() == 1);
  const std::string top = GlobalManifestFiles(plan.graphs, ManifestOptions("/out")).at("/out/build.ninja");
  CHECK(top.find("\nc = /build\n") != std::string::npos);
  CHECK(top.find("CPP_HOST ${c}/gen.cu") != std::string::npos);  // the second TU's steps read it
  CHECK(top.find("\nbuild /build/gen.cu: phony\n") == std::string::npos);
  CHECK(top.find("\nbuild /src/a.cu: phony\n") != std::string::npos);
}

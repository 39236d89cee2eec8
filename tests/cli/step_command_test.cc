#include <doctest/doctest.h>

#include <algorithm>
#include <filesystem>
#include <iostream>
#include <sstream>

#include "src/base/depfile.h"
#include "src/base/step_gate.h"
#include "src/cli/step_command.h"
#include "src/plan/graph_dir.h"
#include "src/plan/intermediate_stubs.h"
#include "src/plan/step_protocol.h"
#include "tests/test_support.h"

using namespace fastcuda;
using fastcuda::testing::FakeFileSystem;

namespace {

/// A program that writes `content` to the output after `-o` and exits with
/// `exit_code`, on the fake disk it is given; remembers what it ran.
class FakeProgram : public CommandRunner {
 public:
  FakeProgram(FakeFileSystem& disk, std::string content, int exit_code = 0)
      : disk_(disk), content_(std::move(content)), exit_code_(exit_code) {}
  ProcessResult Run(const ProcessSpec& spec) override {
    ran.push_back(spec);
    for (size_t i = 0; i + 1 < spec.argv.size(); ++i) {
      if (spec.argv[i] == "-o") disk_.Write(ResolvePath(spec.cwd, spec.argv[i + 1]), content_);
    }
    return {exit_code_, 0, "printed\n", "", 1234};
  }
  std::vector<ProcessSpec> ran;

 private:
  FakeFileSystem& disk_;
  std::string content_;
  int exit_code_;
};

StepInvocation CiccStep(const std::vector<std::string>& options) {
  std::vector<std::string> args = options;
  args.insert(args.end(),
              {"--cwd", "/w", "--env-file", "/w/nvcc.env", "/w/a.ptx", "--", "cicc", "-o", "a.ptx"});
  return StepInvocation::Parse(args);
}

}  // namespace

TEST_CASE("step on fakes: an output that came out the same keeps its file and mtime (restat)") {
  FakeFileSystem disk({{"/w/nvcc.env", R"({"PATH": "/cuda/bin"})"}, {"/w/a.ptx", "ptx v1"}});
  auto before = disk.MTime("/w/a.ptx");
  FakeProgram same(disk, "ptx v1");
  CHECK(RunStep(CiccStep({}), same, disk, {}) == 0);
  REQUIRE(same.ran.size() == 1);
  CHECK(same.ran[0].env_set == std::map<std::string, std::string>{{"PATH", "/cuda/bin"}});
  CHECK(same.ran[0].cwd == "/w");
  CHECK(same.ran[0].temp_dir == "");  // no temp root: the TMPDIR it inherits
  CHECK(disk.MTime("/w/a.ptx") == before);
  CHECK_FALSE(disk.IsFile("/w/a.ptx.fastcuda-prev"));
  FakeProgram changed(disk, "ptx v2");
  CHECK(RunStep(CiccStep({}), changed, disk, {}) == 0);
  CHECK(disk.Read("/w/a.ptx") == "ptx v2");
  CHECK(disk.MTime("/w/a.ptx") != before);
}

TEST_CASE("step on fakes: the program runs with nvcc's directories before the PATH the step inherited") {
  FakeFileSystem disk({{"/w/nvcc.env", R"({"PATH": "/cuda/nvvm/bin:/cuda/bin:$PATH"})"}});
  FakeProgram program(disk, "ptx");
  CHECK(RunStep(CiccStep({}), program, disk, {{"PATH", "/venv/bin:/usr/bin"}}) == 0);
  REQUIRE(program.ran.size() == 1);
  CHECK(program.ran[0].env_set.at("PATH") == "/cuda/nvvm/bin:/cuda/bin:/venv/bin:/usr/bin");
}

TEST_CASE(
    "step on fakes: nvcc's own outputs (--fresh-outputs) get a new mtime even when they come out the same") {
  FakeFileSystem disk({{"/w/nvcc.env", "{}"}, {"/w/a.ptx", "ptx v1"}});
  auto before = disk.MTime("/w/a.ptx");
  FakeProgram same(disk, "ptx v1");
  CHECK(RunStep(CiccStep({"--fresh-outputs"}), same, disk, {}) == 0);
  CHECK(disk.Read("/w/a.ptx") == "ptx v1");
  CHECK(disk.MTime("/w/a.ptx") > before);
  CHECK_FALSE(disk.IsFile("/w/a.ptx.fastcuda-prev"));
}

TEST_CASE("step on fakes: a host source that assembles another file is never kept, where asked") {
  const std::string code = "asm(\".incbin \\\"data.bin\\\"\");\n";
  FakeFileSystem disk({{"/w/nvcc.env", "{}"}, {"/w/a.ptx", code}});
  auto before = disk.MTime("/w/a.ptx");
  FakeProgram same(disk, code);
  CHECK(RunStep(CiccStep({}), same, disk, {}) == 0);
  CHECK(disk.MTime("/w/a.ptx") == before);  // not asked: restat as ever
  CHECK(RunStep(CiccStep({"--never-keep-incbin"}), same, disk, {}) == 0);
  CHECK(disk.Read("/w/a.ptx") == code);
  CHECK(disk.MTime("/w/a.ptx") != before);  // the host compile after it runs
  CHECK_FALSE(disk.IsFile("/w/a.ptx.fastcuda-prev"));
  FakeProgram plain(disk, "int x;\n");
  CHECK(RunStep(CiccStep({"--never-keep-incbin"}), plain, disk, {}) == 0);
  before = disk.MTime("/w/a.ptx");
  CHECK(RunStep(CiccStep({"--never-keep-incbin"}), plain, disk, {}) == 0);
  CHECK(disk.MTime("/w/a.ptx") == before);
}

TEST_CASE("step on fakes: a device step runs in its work dir and names its files to the launcher") {
  FakeFileSystem disk({{"/w/nvcc.env", "{}"}, {"/b/tu/k/a.cpp1.ii", "code"}});
  FakeProgram program(disk, "ptx");
  StepInvocation step =
      StepInvocation::Parse({"--cwd", "/src", "--env-file", "/w/nvcc.env", "--program-dir", "/b/tu/k",
                             "--input", "a.cpp1.ii", "--input", "a.module_id", "/b/tu/k/a.ptx",
                             "/b/tu/k/a.gpu", "--", "sccache", "cicc", "a.cpp1.ii", "-o", "a.ptx"});
  CHECK(StepInvocation::Parse(step.Words()).Words() == step.Words());
  CHECK(RunStep(step, program, disk, {}) == 0);
  REQUIRE(program.ran.size() == 1);
  CHECK(program.ran[0].cwd == "/b/tu/k");
  CHECK(disk.Read("/b/tu/k/a.ptx") == "ptx");
  CHECK(program.ran[0].env_set ==
        std::map<std::string, std::string>{{"FASTCUDA_STEP_INPUTS", "a.cpp1.ii\na.module_id\n"},
                                           {"FASTCUDA_STEP_OUTPUTS", "a.ptx\na.gpu\n"},
                                           {"FASTCUDA_STEP_CACHE_RESULT", "/b/tu/k/a.ptx.cache-result"},
                                           {"SCCACHE_DIRECT", "false"}});
  FakeProgram local(disk, "ptx");
  CHECK(RunStep(CiccStep({}), local, disk, {}) == 0);
  CHECK(local.ran[0].env_set.count("FASTCUDA_STEP_INPUTS") == 0);
}

TEST_CASE("step on fakes: under a memory budget that may bind, a remote step's misses stay remote") {
  // Run on an idle local core (FASTCUDA_REMOTE_LOCAL=idle), the memory ledger would not see them
  auto local_mode = [](int64_t budget_kib, const std::map<std::string, std::string>& inherited) {
    FakeFileSystem disk({{"/w/nvcc.env", "{}"}});
    PlannedLimits limits;
    limits.memory_budget_kib = budget_kib;
    limits.jobs = 16;
    disk.Write(PlannedLimitsPath("/g"), FormatPlannedLimits(limits));
    FakeProgram program(disk, "ptx");
    StepInvocation step = StepInvocation::Parse(
        {"--cwd", "/w", "--env-file", "/w/nvcc.env", "--lock-dir", "/g/step-locks", "/w/a.ptx", "--",
         "/opt/bin/fastcuda-remote", "--remote", "grpc://h:1", "cicc", "-o", "a.ptx"});
    RunStep(step, program, disk, inherited);
    auto value = program.ran.at(0).env_set.find("FASTCUDA_REMOTE_LOCAL");
    return value == program.ran.at(0).env_set.end() ? std::string("(unset)") : value->second;
  };
  CHECK(local_mode(1 << 20, {}) == "never");             // 16 steps in 1 GiB: it may bind
  CHECK(local_mode(int64_t(1) << 40, {}) == "(unset)");  // it cannot bind
  CHECK(local_mode(1 << 20, {{"FASTCUDA_REMOTE_LOCAL", "always"}}) == "(unset)");  // the user's choice
}

TEST_CASE("step on fakes: the program's TMPDIR is its step's own, under the temp root") {
  FakeFileSystem disk({{"/w/nvcc.env", "{}"}});
  FakeProgram program(disk, "ptx");
  StepInvocation step = CiccStep({"--temp-root", "/b/tmp"});
  CHECK(RunStep(step, program, disk, {}) == 0);
  REQUIRE(program.ran.size() == 1);
  CHECK(program.ran[0].temp_dir == StepTempDir(step));
  CHECK(program.ran[0].temp_dir.rfind("/b/tmp/", 0) == 0);
}

TEST_CASE("step on fakes: sccache runs a step without its direct mode unless the environment chose one") {
  FakeFileSystem disk({{"/w/nvcc.env", "{}"}, {"/w/chosen.env", R"({"SCCACHE_DIRECT": "true"})"}});
  auto direct_mode = [&](const std::string& env_file, const std::map<std::string, std::string>& inherited) {
    FakeProgram compiler(disk, "object");
    StepInvocation step = StepInvocation::Parse({"--cwd", "/w", "--env-file", env_file, "/w/a.o", "--",
                                                 "sccache", "g++", "-c", "a.cpp", "-o", "a.o"});
    CHECK(RunStep(step, compiler, disk, inherited) == 0);
    auto value = compiler.ran.at(0).env_set.find("SCCACHE_DIRECT");
    return value == compiler.ran.at(0).env_set.end() ? std::string("(unset)") : value->second;
  };
  CHECK(direct_mode("/w/nvcc.env", {{"PATH", "/bin"}}) == "false");
  CHECK(direct_mode("/w/chosen.env", {}) == "true");
  CHECK(direct_mode("/w/nvcc.env", {{"SCCACHE_DIRECT", "true"}}) == "(unset)");  // inherited as it is
}

namespace {

/// A launcher that writes `outcome` where FastCuda asks it to say whether a cache gave the outputs.
class SayingLauncher : public FakeProgram {
 public:
  SayingLauncher(FakeFileSystem& disk, std::string outcome)
      : FakeProgram(disk, "ptx"), disk_(disk), outcome_(outcome) {}
  ProcessResult Run(const ProcessSpec& spec) override {
    auto result = spec.env_set.find("FASTCUDA_STEP_CACHE_RESULT");
    if (result != spec.env_set.end()) disk_.Write(result->second, outcome_);
    return FakeProgram::Run(spec);
  }

 private:
  FakeFileSystem& disk_;
  std::string outcome_;
};

}  // namespace

TEST_CASE("step on fakes: what a device launcher says of the cache goes to the memory log, its file goes") {
  FakeFileSystem disk({{"/w/nvcc.env", "{}"}});
  // Appended to through the file system, as every step of a build appends.
  const std::string memory_log = "/g/step-memory.tsv";
  auto run = [&](const std::string& outcome) {
    SayingLauncher launcher(disk, outcome);
    StepInvocation step =
        StepInvocation::Parse({"--env-file", "/w/nvcc.env", "--rss-log", memory_log, "--program-dir", "/w",
                               "--input", "a.ii", "/w/a.ptx", "--", "remote", "cicc", "a.ii", "-o", "a.ptx"});
    CHECK(RunStep(step, launcher, disk, {}) == 0);
    CHECK_FALSE(disk.IsFile("/w/a.ptx.cache-result"));
    return ParseStepMemoryRecords(disk.Read(memory_log).value_or("")).cache_outcomes;
  };
  CHECK(run("hit\n") == std::map<std::string, std::string>{{"/w/a.ptx", "hit"}});
  CHECK(run("miss") == std::map<std::string, std::string>{{"/w/a.ptx", "miss"}});
  CHECK(run("here") == std::map<std::string, std::string>{{"/w/a.ptx", "here"}});  // a miss run locally
  CHECK(run("not sure").empty());
  CHECK(fastcuda::testing::CountMatches(disk.Read(memory_log).value_or(""), "/w/a.ptx") ==
        4);  // a line a run, appended
}

TEST_CASE("step on fakes: a stamp is gone while its program runs, and after it fails") {
  FakeFileSystem disk({{"/w/nvcc.env", "{}"}, {"/w/s.stamp", ""}});
  class CheckingStamp : public CommandRunner {
   public:
    explicit CheckingStamp(FakeFileSystem& disk) : disk_(disk) {}
    ProcessResult Run(const ProcessSpec&) override {
      stamp_while_running = disk_.IsFile("/w/s.stamp");
      return {1};
    }
    bool stamp_while_running = true;

   private:
    FakeFileSystem& disk_;
  } program(disk);
  CHECK(RunStep(StepInvocation::Parse({"--cwd", "/w", "--stamp", "/w/s.stamp", "--", "ptxas", "a.ptx"}),
                program, disk, {}) == 1);
  CHECK_FALSE(program.stamp_while_running);
  CHECK_FALSE(disk.IsFile("/w/s.stamp"));
}

TEST_CASE("step on fakes: a failed step leaves no output, old or new, and its status") {
  FakeFileSystem disk({{"/w/nvcc.env", "{}"}, {"/w/a.ptx", "ptx v1"}});
  FakeProgram failing(disk, "half a ptx", 3);
  CHECK(RunStep(CiccStep({"--capture", "/w/capture/step0"}), failing, disk, {}) == 3);
  CHECK_FALSE(disk.IsFile("/w/a.ptx"));
  CHECK_FALSE(disk.IsFile("/w/a.ptx.fastcuda-prev"));
  std::optional<CapturedOutput> captured = ReadCapture("/w/capture/step0", disk);
  REQUIRE(captured);
  CHECK(captured->exit_code == 3);
  CHECK(captured->stdout_text == "printed\n");
}

TEST_CASE(
    "step on fakes: with a failure note the program's output, both streams in one, follows the user's edge") {
  FakeFileSystem disk(
      {{"/w/nvcc.env", "{}"},
       {"/b/failed-edges", FormatFailureNotes({{"/w", {"k.o", "nvcc -c k.cu -o k.o", false}}})}});
  FakeProgram failing(disk, "half a ptx", 3);
  std::ostringstream printed;
  std::streambuf* stdout_buffer = std::cout.rdbuf(printed.rdbuf());
  const std::vector<std::string> note = {"--failure-notes", "/b/failed-edges", "--failure-note", "/w"};
  const int status = RunStep(CiccStep(note), failing, disk, {});
  FakeProgram working(disk, "ptx");
  RunStep(CiccStep(note), working, disk, {});
  std::cout.rdbuf(stdout_buffer);
  CHECK(status == 3);
  REQUIRE(failing.ran.size() == 1);
  CHECK(failing.ran[0].capture_output);
  CHECK(failing.ran[0].merge_streams);
  CHECK(printed.str() == "\x1B[31mFAILED: \x1B[0mk.o \nnvcc -c k.cu -o k.o\nprinted\nprinted\n");
}

TEST_CASE("step on fakes: the depfile is kept and made absolute; a stamp is touched") {
  FakeFileSystem disk({{"/w/nvcc.env", "{}"}, {"/w/a.ii.d", "a.ii: k.cu inc/h.h\n"}});
  FakeProgram program(disk, "text");
  StepInvocation step = CiccStep(
      {"--depfile", "a.ii.d", "--absolute-depfile", "--keep-depfile", "a.ii.deps", "--stamp", "/w/s.stamp"});
  CHECK(RunStep(step, program, disk, {}) == 0);
  Depfile kept = ParseDepfile(disk.Read("/w/a.ii.deps").value_or(""));  // compact, as the program's paths
  CHECK(kept.targets == std::vector<std::string>{"a.ii"});
  CHECK(kept.dependencies == std::vector<std::string>{"k.cu", "inc/h.h"});
  CHECK(disk.Read("/w/a.ii.deps") == FormatCompactDepfile(kept));
  CHECK(disk.Read("/w/a.ii.d").value_or("").find("/w/inc/h.h") != std::string::npos);
  // Its target is the step's first output: Ninja, reading it without `deps`, wants it there.
  CHECK(disk.Read("/w/a.ii.d").value_or("").starts_with("/w/a.ptx :"));
  CHECK(disk.Read("/w/s.stamp") == "");
}

TEST_CASE(
    "step on fakes: a depfile the program writes elsewhere (the user's) is copied, then made absolute") {
  FakeFileSystem disk({{"/w/nvcc.env", "{}"}, {"/w/obj/user.d", "obj/a b.o: k.cu inc/h.h\n"}});
  FakeProgram program(disk, "object");
  StepInvocation step =
      CiccStep({"--depfile", "/g/nvcc.d", "--absolute-depfile", "--depfile-from", "obj/user.d"});
  CHECK(RunStep(step, program, disk, {}) == 0);
  CHECK(disk.Read("/w/obj/user.d") == "obj/a b.o: k.cu inc/h.h\n");  // as nvcc wrote it
  const std::string copy = disk.Read("/g/nvcc.d").value_or("");
  CHECK(copy.starts_with("/w/a.ptx :"));  // one target, the output, though nvcc left its space unescaped
  CHECK(copy.find("/w/inc/h.h") != std::string::npos);
}

TEST_CASE("step on fakes: cudafe++'s host source from a cache names the stub as cicc writes it here") {
  FakeFileSystem disk({{"/w/nvcc.env", "{}"}});
  FakeProgram cache_hit(disk, "int host();\n# 1 \"x_0.cudafe1.stub.c\"\n#include \"x_0.cudafe1.stub.c\"\n");
  StepInvocation step = StepInvocation::Parse(
      {"--cwd", "/w", "--env-file", "/w/nvcc.env", "--stub-host-source", "k.cudafe1.cpp", "--stub-name",
       "k.cudafe1.stub.c", "/w/k.cudafe1.cpp", "--", "sccache", "cudafe++", "-o", "k.cudafe1.cpp"});
  CHECK(RunStep(step, cache_hit, disk, {}) == 0);
  CHECK(disk.Read("/w/k.cudafe1.cpp") ==
        "int host();\n# 1 \"k.cudafe1.stub.c\"\n#include \"k.cudafe1.stub.c\"\n");
}

TEST_CASE("step on fakes: an object made by this command from reads older than it is not made again") {
  FakeFileSystem disk(
      {{"/w/nvcc.env", "{}"}, {"/w/a.cpp", "host"}, {"/w/deps.d", FormatCompactDepfile({{"a.o"}, {"h.h"}})}});
  FakeProgram compiler(disk, "object");
  auto object_step = [](std::vector<std::string> extra) {
    std::vector<std::string> args = {
        "--cwd",           "/w",        "--env-file", "/w/nvcc.env",          "--reads",
        "a.cpp",           "--made-by", "made-by",    "--ninja-depfile-from", "deps.d",
        "--ninja-depfile", "a.o.d",     "/w/a.o"};
    args.insert(args.end(), extra.begin(), extra.end());
    args.insert(args.end(), {"--", "gcc", "-c", "a.cpp", "-o", "a.o"});
    return StepInvocation::Parse(args);
  };
  CHECK(RunStep(object_step({}), compiler, disk, {}) == 0);
  CHECK(compiler.ran.size() == 1);
  // The record's hash is in an attribute: the file takes no disk block.
  CHECK(disk.Read("/w/made-by") == "");
  CHECK(disk.Attribute("/w/made-by", "user.fastcuda.made-by"));
  // Ninja reran the edge for a header touched in its deps log: nothing the compile reads changed.
  disk.Remove("/w/a.o.d");
  CHECK(RunStep(object_step({}), compiler, disk, {}) == 0);
  CHECK(compiler.ran.size() == 1);
  // Ninja still gets the deps, in gcc's layout, for its output as it names it.
  CHECK(disk.Read("/w/a.o.d") == "/w/a.o : h.h\n");
  // Another command (a flag changed in the manifest): made again.
  CHECK(RunStep(object_step({"--stamp", "/w/other"}), compiler, disk, {}) == 0);
  CHECK(compiler.ran.size() == 2);
  // A read newer than the object: made again.
  disk.Write("/w/a.cpp", "host v2");
  CHECK(RunStep(object_step({"--stamp", "/w/other"}), compiler, disk, {}) == 0);
  CHECK(compiler.ran.size() == 3);
  // The object overwritten by something else: made again.
  disk.Write("/w/a.o", "foreign");
  CHECK(RunStep(object_step({"--stamp", "/w/other"}), compiler, disk, {}) == 0);
  CHECK(compiler.ran.size() == 4);
  CHECK(disk.Read("/w/a.o") == "object");
  // The object gone: made again.
  disk.Remove("/w/a.o");
  CHECK(RunStep(object_step({"--stamp", "/w/other"}), compiler, disk, {}) == 0);
  CHECK(compiler.ran.size() == 5);
  // A failed compile leaves no record of what made the object.
  FakeProgram failing(disk, "half", 1);
  disk.Write("/w/a.cpp", "host v3");
  CHECK(RunStep(object_step({"--stamp", "/w/other"}), failing, disk, {}) == 1);
  CHECK_FALSE(disk.IsFile("/w/made-by"));
  // Where no attributes are kept the file holds the hash, and tells the same.
  disk.keeps_attributes = false;
  CHECK(RunStep(object_step({"--stamp", "/w/other"}), compiler, disk, {}) == 0);
  CHECK(compiler.ran.size() == 6);
  CHECK(disk.Read("/w/made-by").value_or("").size() == 16);
  CHECK(RunStep(object_step({"--stamp", "/w/other"}), compiler, disk, {}) == 0);
  CHECK(compiler.ran.size() == 6);
}

TEST_CASE("step on fakes: an object not made again gets a new mtime where it is nvcc's, and stays made") {
  FakeFileSystem disk(
      {{"/w/nvcc.env", "{}"}, {"/w/a.cpp", "host"}, {"/w/deps.d", FormatCompactDepfile({{"a.o"}, {"h.h"}})}});
  FakeProgram compiler(disk, "object");
  StepInvocation step = StepInvocation::Parse({"--cwd",
                                               "/w",
                                               "--env-file",
                                               "/w/nvcc.env",
                                               "--reads",
                                               "a.cpp",
                                               "--made-by",
                                               "made-by",
                                               "--ninja-depfile-from",
                                               "deps.d",
                                               "--ninja-depfile",
                                               "a.o.d",
                                               "--fresh-outputs",
                                               "/w/a.o",
                                               "--",
                                               "gcc",
                                               "-c",
                                               "a.cpp",
                                               "-o",
                                               "a.o"});
  CHECK(RunStep(step, compiler, disk, {}) == 0);
  auto made = disk.MTime("/w/a.o");
  // Ninja reran the edge for a header edited and put back: the compile reads
  // nothing that changed, but a generator's edge (no restat) finds the object
  // newer than the header, as after nvcc.
  CHECK(RunStep(step, compiler, disk, {}) == 0);
  CHECK(compiler.ran.size() == 1);
  CHECK(disk.MTime("/w/a.o") > made);
  // The record follows the new mtime: the next run does not compile either.
  CHECK(RunStep(step, compiler, disk, {}) == 0);
  CHECK(compiler.ran.size() == 1);
}

TEST_CASE("step on fakes: ptxas with a line table lists its sources and runs again when one is touched") {
  FakeFileSystem disk({{"/w/nvcc.env", "{}"},
                       {"/w/a.ptx", "\t.loc 1 5 0\n\t.file\t1 \"/src/a.cu\"\n\t.file\t2 \"inc/gone.h\"\n"},
                       {"/src/a.cu", "source"}});
  FakeProgram ptxas(disk, "cubin");
  const StepInvocation step = StepInvocation::Parse({"--cwd",
                                                     "/w",
                                                     "--env-file",
                                                     "/w/nvcc.env",
                                                     "--depfile",
                                                     "a.cubin.d",
                                                     "--line-table-ptx",
                                                     "a.ptx",
                                                     "--reads",
                                                     "a.ptx",
                                                     "--reads",
                                                     "/w/nvcc.env",
                                                     "--made-by",
                                                     "a.cubin.made-by",
                                                     "a.cubin",
                                                     "--",
                                                     "ptxas",
                                                     "--generate-line-info",
                                                     "a.ptx",
                                                     "-o",
                                                     "a.cubin"});
  CHECK(RunStep(step, ptxas, disk, {}) == 0);
  CHECK(ptxas.ran.size() == 1);
  // What exists: a missing file in a depfile would leave the edge dirty forever.
  CHECK(disk.Read("/w/a.cubin.d") == FormatDepfile({{"a.cubin"}, {"/src/a.cu"}}));
  // Run again (the launcher reruns it in every call): nothing it reads changed.
  CHECK(RunStep(step, ptxas, disk, {}) == 0);
  CHECK(ptxas.ran.size() == 1);
  // The source touched, or given an older mtime (a restore): its mtime goes into the cubin.
  disk.Touch("/src/a.cu");
  CHECK(RunStep(step, ptxas, disk, {}) == 0);
  CHECK(ptxas.ran.size() == 2);
  disk.SetMTime("/src/a.cu", std::filesystem::file_time_type{});
  CHECK(RunStep(step, ptxas, disk, {}) == 0);
  CHECK(ptxas.ran.size() == 3);
  // Another size at the same mtime (`cp -p`, tar): ptxas writes the size too.
  disk.Write("/src/a.cu", "longer source");
  disk.SetMTime("/src/a.cu", std::filesystem::file_time_type{});
  CHECK(RunStep(step, ptxas, disk, {}) == 0);
  CHECK(ptxas.ran.size() == 4);
  // A named source that appears: ptxas now reads its mtime and size.
  disk.Write("/w/inc/gone.h", "header");
  CHECK(RunStep(step, ptxas, disk, {}) == 0);
  CHECK(ptxas.ran.size() == 5);
  CHECK(disk.Read("/w/a.cubin.d") == FormatDepfile({{"a.cubin"}, {"/src/a.cu", "/w/inc/gone.h"}}));
  // Its reader left the cubin a stub (the same mtime); a reader that must
  // run gets the body back from ptxas, though nothing ptxas reads changed.
  auto cubin_mtime = disk.MTime("/w/a.cubin");
  disk.Write("/w/a.cubin", "");
  disk.SetMTime("/w/a.cubin", *cubin_mtime);
  StepInvocation restoring = step;
  restoring.restores_body = true;
  CHECK(RunStep(restoring, ptxas, disk, {}) == 0);
  CHECK(ptxas.ran.size() == 6);
  CHECK(disk.Read("/w/a.cubin") == "cubin");
}

TEST_CASE("step on fakes: a whole-call cache lookup, the steps after its hit, and after its miss") {
  FakeFileSystem disk({{"/w/nvcc.env", "{}"}, {"/w/a.ii.deps", "a.ii: h.h\n"}});
  auto parse = [](std::vector<std::string> args) {
    args.insert(args.begin(), {"--cwd", "/w", "--env-file", "/w/nvcc.env"});
    return StepInvocation::Parse(args);
  };
  StepInvocation lookup = parse(
      {"--cache-lookup", "/w/result", "/w/cached.o", "--", "ccache", "nvcc", "-c", "k.cu", "-o", "cached.o"});
  FakeProgram cache(disk, "the cache's object");  // writes -o and succeeds: a hit
  CHECK(RunStep(lookup, cache, disk, {}) == 0);
  CHECK(disk.Read("/w/result") == "hit");
  REQUIRE(cache.ran.size() == 1);
  CHECK(cache.ran[0].env_set.count("CCACHE_PREFIX") == 1);  // asked without compiling
  CHECK(cache.ran[0].env_set.count("CCACHE_PREFIX_CPP") == 1);

  StepInvocation preprocess = parse({"--skip-on-hit", "/w/result", "--keep-depfile", "a.ii.deps", "/w/a.ii",
                                     "--", "gcc", "-E", "k.cu", "-o", "a.ii"});
  StepInvocation object = parse({"--skip-on-hit",
                                 "/w/result",
                                 "--hit-object",
                                 "/w/cached.o",
                                 "--cache-store",
                                 "ccache",
                                 "--cache-store",
                                 "nvcc",
                                 "--cache-store",
                                 "-o",
                                 "--cache-store",
                                 "s.o",
                                 "--cache-store-depfile",
                                 "a.ii.deps",
                                 "/w/k.o",
                                 "--",
                                 "gcc",
                                 "-c",
                                 "-o",
                                 "k.o"});
  FakeProgram compiler(disk, "made by the steps");
  CHECK(RunStep(preprocess, compiler, disk, {}) == 0);
  CHECK(RunStep(object, compiler, disk, {}) == 0);
  CHECK(compiler.ran.empty());
  CHECK(disk.Read("/w/a.ii") == "");       // made, empty: nothing reads it on a hit
  CHECK(disk.Read("/w/a.ii.deps") == "");  // the headers are the lookup's
  CHECK(disk.Read("/w/k.o") == "the cache's object");

  FakeProgram missing(disk, "", 1);
  CHECK(RunStep(lookup, missing, disk, {}) == 0);  // a miss is no failure
  CHECK(disk.Read("/w/result") == "miss");
  CHECK(disk.Read("/w/cached.o") == "");
  CHECK(RunStep(object, compiler, disk, {}) == 0);
  CHECK(disk.Read("/w/k.o") == "made by the steps");
  REQUIRE(compiler.ran.size() == 2);  // the compile, then the store
  CHECK(compiler.ran[1].argv == std::vector<std::string>{"ccache", "nvcc", "-o", "s.o"});
  CHECK(compiler.ran[1].env_set.count("CCACHE_PREFIX") == 1);
  CHECK(compiler.ran[1].env_set.count("CCACHE_PREFIX_CPP") == 0);  // the cache preprocesses for its key
  CHECK_FALSE(disk.IsFile("/w/s.o"));
}

TEST_CASE(
    "step on fakes: the lookup's dyndep file gives its waiters their inputs, rewritten on a flip only") {
  FakeFileSystem disk({{"/w/nvcc.env", "{}"}});
  StepInvocation lookup = StepInvocation::Parse(
      {"--cwd",    "/w",        "--env-file", "/w/nvcc.env", "--cache-lookup", "--dyndep",
       "dyndep",   "--waiter",  "k.o",        "--on-hit",    "cached.o",       "--on-miss",
       "k.cpp",    "--on-miss", "cached.o",   "--waiter",    "k.o.d",          "--on-hit",
       "cached.d", "--on-miss", "a.ii.d",     "/w/result",   "/w/cached.o",    "/w/dyndep",
       "--",       "ccache",    "nvcc",       "-o",          "cached.o"});
  FakeProgram hit(disk, "the cache's object");
  REQUIRE(RunStep(lookup, hit, disk, {}) == 0);
  CHECK(disk.Read("/w/dyndep") ==
        "ninja_dyndep_version = 1\n"
        "build k.o: dyndep | cached.o\n"
        "build k.o.d: dyndep | cached.d\n");
  auto written = disk.MTime("/w/dyndep");
  REQUIRE(RunStep(lookup, hit, disk, {}) == 0);  // hit again: Ninja finds the waiters clean
  CHECK(disk.MTime("/w/dyndep") == written);
  FakeProgram miss(disk, "", 1);
  REQUIRE(RunStep(lookup, miss, disk, {}) == 0);
  CHECK(disk.Read("/w/dyndep") ==
        "ninja_dyndep_version = 1\n"
        "build k.o: dyndep | k.cpp cached.o\n"
        "build k.o.d: dyndep | a.ii.d\n");
  CHECK(disk.MTime("/w/dyndep") != written);
}

namespace {

/// A program that says it ran out of memory on its first `failures` runs
/// (exit 1), then writes its output as FakeProgram does; remembers, for
/// each run, the lock calls made before it.
class ShortOfMemory : public CommandRunner {
 public:
  ShortOfMemory(FakeFileSystem& disk, int failures, std::vector<std::string>& calls)
      : disk_(disk), failures_(failures), calls_(calls) {}
  ProcessResult Run(const ProcessSpec&) override {
    calls_.push_back("run");
    if (runs_++ < failures_) return {1, 0, "cicc: out of memory\n", "", 2048};
    disk_.Write("/w/a.ptx", "ptx");
    return {0, 0, "", "", 4096};
  }

 private:
  FakeFileSystem& disk_;
  int failures_;
  int runs_ = 0;
  std::vector<std::string>& calls_;
};

/// Records the lock calls of one step, which never wait.
class RecordingLocks : public LockFiles {
 public:
  explicit RecordingLocks(std::vector<std::string>& calls) : calls_(calls) {}
  bool Lock(const std::string& name, LockKind kind) override {
    calls_.push_back((kind == LockKind::kShared ? "shared " : "exclusive ") + name);
    return true;
  }
  void Unlock(const std::string& name) override { calls_.push_back("unlock " + name); }

 private:
  std::vector<std::string>& calls_;
};

/// Runs the cicc step of ShortOfMemory with `failures` through RecordingLocks;
/// what it printed, its lock calls and runs, and the memory log.
struct OutOfMemoryRun {
  int status = 0;
  std::string printed;
  std::vector<std::string> calls;
  std::string memory_log;
};
OutOfMemoryRun RunShortOfMemory(FakeFileSystem& disk, int failures) {
  OutOfMemoryRun run;
  const std::string memory_log = "/g/step-memory.tsv";  // appended to through the file system
  ShortOfMemory program(disk, failures, run.calls);
  RecordingLocks locks(run.calls);
  std::ostringstream printed;
  std::streambuf* stdout_buffer = std::cout.rdbuf(printed.rdbuf());
  run.status =
      RunStep(CiccStep({"--rss-log", memory_log, "--lock-dir", "/w/locks"}), program, disk, {}, &locks);
  std::cout.rdbuf(stdout_buffer);
  run.printed = printed.str();
  run.memory_log = disk.Read(memory_log).value_or("");
  return run;
}

/// Programs that write, to the file after `-o`, what `writes` holds for
/// their name; remembers what ran.
class FakePrograms : public CommandRunner {
 public:
  explicit FakePrograms(FakeFileSystem& disk) : disk_(disk) {}
  ProcessResult Run(const ProcessSpec& spec) override {
    ran.push_back(spec.argv.front());
    if (spec.argv.front() == "ninja") {  // `ninja -f MANIFEST -t commands -s PATH`
      auto command = commands.find(spec.argv.back());
      if (command == commands.end()) return {1, 0, "", "ninja: error: unknown target", 1};
      return {0, 0, command->second + "\n", "", 1};
    }
    for (size_t i = 0; i + 1 < spec.argv.size(); ++i) {
      if (spec.argv[i] == "-o")
        disk_.Write(ResolvePath(spec.cwd, spec.argv[i + 1]), writes[spec.argv.front()]);
    }
    return {0, 0, "", "", 1};
  }
  std::map<std::string, std::string> writes;
  std::map<std::string, std::string> commands;  ///< the manifest's: by output
  std::vector<std::string> ran;

 private:
  FakeFileSystem& disk_;
};

/// Preprocessed text `version`, longer than its stub.
std::string Preprocessed(const std::string& version) {
  return "preprocessed " + version + std::string(4000, '\n');
}

StepInvocation Preprocess() {
  return StepInvocation::Parse(
      {"--cwd", "/w", "--stubbed-by-reader", "k.ii", "k.ii", "--", "gcc", "-E", "k.cu", "-o", "k.ii"});
}

StepInvocation ReadPreprocessed() {
  return StepInvocation::Parse({"--cwd", "/w", "--manifest", "/w/build.ninja", "--stub-input", "k.ii",
                                "k.ptx", "--", "cicc", "k.ii", "-o", "k.ptx"});
}

/// Programs that write as `writes` says, in a manifest where Preprocess writes /w/k.ii.
FakePrograms ProgramsWithPreprocess(FakeFileSystem& disk) {
  FakePrograms programs(disk);
  programs.commands["/w/k.ii"] = "/bin/fastcuda step " + JoinShellWords(Preprocess().Words());
  return programs;
}

}  // namespace

TEST_CASE("step on fakes: a program that ran out of memory beside other steps runs again alone, once") {
  FakeFileSystem disk({{"/w/nvcc.env", "{}"}});
  OutOfMemoryRun run = RunShortOfMemory(disk, 1);
  CHECK(run.status == 0);
  CHECK(disk.Read("/w/a.ptx") == "ptx");
  CHECK(run.calls == std::vector<std::string>{"shared gate", "shared running", "unlock gate", "run",
                                              "unlock running", "exclusive gate", "exclusive running", "run",
                                              "unlock running", "unlock gate"});
  CHECK(run.printed ==
        "fastcuda: cicc (/w/a.ptx) ran out of memory beside other steps: it said \"cicc: out of memory\"; "
        "ran it again alone, once they had ended: it succeeded\n");
  // The next generation plans with the peak: the first run's (a lower bound), then the whole run's.
  CHECK(ParseStepMemoryLog(run.memory_log) == StepMemory{{"/w/a.ptx", 4096}});
  CHECK(run.memory_log.find("/w/a.ptx\t2048\t") == 0);
}

TEST_CASE("step on fakes: a program that runs out of memory alone too fails the step as it failed") {
  FakeFileSystem disk({{"/w/nvcc.env", "{}"}, {"/w/a.ptx", "old ptx"}});
  OutOfMemoryRun run = RunShortOfMemory(disk, 2);
  CHECK(run.status == 1);
  CHECK(std::count(run.calls.begin(), run.calls.end(), "run") == 2);
  CHECK_FALSE(disk.IsFile("/w/a.ptx"));
  CHECK(run.printed ==
        "fastcuda: cicc (/w/a.ptx) ran out of memory beside other steps: it said \"cicc: out of memory\"; "
        "ran it again alone, once they had ended: it exited with status 1 there too\ncicc: out of memory\n");
  CHECK(ParseStepMemoryLog(run.memory_log) == StepMemory{{"/w/a.ptx", 2048}});
}

TEST_CASE("step on fakes: a program that failed otherwise runs once") {
  FakeFileSystem disk({{"/w/nvcc.env", "{}"}});
  std::vector<std::string> calls;
  FakeProgram failing(disk, "half a ptx", 2);
  RecordingLocks locks(calls);
  std::ostringstream printed;
  std::streambuf* stdout_buffer = std::cout.rdbuf(printed.rdbuf());
  CHECK(RunStep(CiccStep({"--lock-dir", "/w/locks"}), failing, disk, {}, &locks) == 2);
  std::cout.rdbuf(stdout_buffer);
  CHECK(failing.ran.size() == 1);
  CHECK(printed.str() == "printed\n");
  CHECK(calls == std::vector<std::string>{"shared gate", "shared running", "unlock gate", "unlock running"});
}

TEST_CASE("step on fakes: a reader stubs what it read; it comes back from its producer's step") {
  FakeFileSystem disk;
  FakePrograms programs = ProgramsWithPreprocess(disk);
  programs.writes = {{"gcc", Preprocessed("v1")}, {"cicc", "ptx v1"}};
  REQUIRE(RunStep(Preprocess(), programs, disk, {}) == 0);
  auto body_mtime = disk.MTime("/w/k.ii");
  REQUIRE(RunStep(ReadPreprocessed(), programs, disk, {}) == 0);
  CHECK(ReadStub(disk, "/w/k.ii"));
  CHECK(disk.Read("/w/k.ii") == "");
  CHECK(disk.MTime("/w/k.ii") == body_mtime);

  // The producer again: the same body keeps the stub and its mtime; another is written whole.
  REQUIRE(RunStep(Preprocess(), programs, disk, {}) == 0);
  CHECK(ReadStub(disk, "/w/k.ii"));
  CHECK(disk.MTime("/w/k.ii") == body_mtime);

  // The reader again (its flags changed): the producer, as the manifest
  // names it, runs first, the body keeps its stub's mtime, and is a stub again after.
  programs.ran.clear();
  REQUIRE(RunStep(ReadPreprocessed(), programs, disk, {}) == 0);
  CHECK(programs.ran == std::vector<std::string>{"ninja", "gcc", "cicc"});
  REQUIRE(ReadStub(disk, "/w/k.ii"));
  CHECK(ReadStub(disk, "/w/k.ii")->hash == StubOf(Preprocessed("v1")).hash);
  CHECK(disk.MTime("/w/k.ii") == body_mtime);

  // Kept whole where the build's environment asks.
  REQUIRE(RunStep(ReadPreprocessed(), programs, disk, {{"FASTCUDA_KEEP_INTERMEDIATES", "1"}}) == 0);
  CHECK(disk.Read("/w/k.ii") == Preprocessed("v1"));

  programs.writes["gcc"] = Preprocessed("v2");
  REQUIRE(RunStep(Preprocess(), programs, disk, {}) == 0);
  CHECK(disk.Read("/w/k.ii") == Preprocessed("v2"));
  CHECK(disk.MTime("/w/k.ii") != body_mtime);
}

TEST_CASE("step on fakes: a regenerated body other than its stub goes after its reader ran") {
  FakeFileSystem disk;
  FakePrograms programs = ProgramsWithPreprocess(disk);
  programs.writes = {{"gcc", Preprocessed("__TIME__ 10:00")}, {"cicc", "ptx"}};
  REQUIRE(RunStep(Preprocess(), programs, disk, {}) == 0);
  REQUIRE(RunStep(ReadPreprocessed(), programs, disk, {}) == 0);
  programs.writes["gcc"] = Preprocessed("__TIME__ 10:01");
  REQUIRE(RunStep(ReadPreprocessed(), programs, disk, {}) == 0);
  CHECK_FALSE(disk.IsFile("/w/k.ii"));  // the producer's edge runs again next build
  CHECK(disk.IsFile("/w/k.ptx"));
}

TEST_CASE(
    "step on fakes: an output no step reads becomes empty, with its mtime; another configuration's does not "
    "stay") {
  FakeFileSystem disk;
  FakePrograms programs(disk);
  programs.writes = {{"cicc", Preprocessed("device code")}};
  auto cicc = [](const std::vector<std::string>& options) {
    std::vector<std::string> args = {"--cwd", "/w"};
    args.insert(args.end(), options.begin(), options.end());
    args.insert(args.end(), {"k.gpu", "--", "cicc", "-o", "k.gpu"});
    return StepInvocation::Parse(args);
  };
  REQUIRE(RunStep(cicc({"--stub-output", "k.gpu"}), programs, disk, {}) == 0);
  CHECK(disk.Read("/w/k.gpu") == "");  // no disk block: no step reads it
  auto mtime = disk.MTime("/w/k.gpu");
  REQUIRE(RunStep(cicc({"--stub-output", "k.gpu"}), programs, disk, {}) == 0);
  CHECK(disk.Read("/w/k.gpu") == "");
  CHECK(disk.MTime("/w/k.gpu") >= mtime);  // cicc ran: no edge waits on it
  REQUIRE(RunStep(cicc({}), programs, disk, {}) == 0);
  CHECK(disk.Read("/w/k.gpu") == Preprocessed("device code"));  // a step reads it now
}

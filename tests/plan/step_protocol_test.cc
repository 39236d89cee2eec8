#include <doctest/doctest.h>

#include <cstdlib>
#include <filesystem>
#include <stdexcept>

#include "src/plan/step_protocol.h"
#include "tests/test_support.h"

using namespace fastcuda;

namespace {

/// A call with every field set, none to its default.
StepInvocation EveryField() {
  StepInvocation call;
  call.cwd = "/build dir";
  call.env_file = "/w/nvcc.env";
  call.depfile = "k.cpp4.ii.d";
  call.absolute_depfile = true;
  call.kept_depfile = "/w/k.cpp4.ii.deps";
  call.line_table_ptx = "/w/k.compute_80.ptx";
  call.outputs = {"k.cpp4.ii", "k.extra"};
  call.stamp = "/w/step3.stamp";
  call.fresh_outputs = true;
  call.capture = "/w/capture/step3-abc";
  call.failure_notes = "/b/failed-edges";
  call.manifest = "/b/build.ninja";
  call.failure_note = "/w";
  call.rss_log = "/w/step-memory.tsv";
  call.temp_root = "/w/tmp";
  call.keeps_tmpdir = true;
  call.split_share = 3;
  call.embedding =
      FatbinEmbedding{"/w/k.early.o", "/w/k.fatbin.c", "/w/k.fatbin", FatbinLayout::kRelocatable};
  call.fatbin_images = {"/w/k.compute_80.cubin.image.fatbin", "/w/k.compute_90.ptx.image.fatbin"};
  call.blank_disabled = "/w/k.cudafe1.cpp";
  call.never_keep_incbin = true;
  call.response_key = "0123456789abcdef";
  call.stub_include = {"/w/k.cudafe1.cpp", "k.cudafe1.stub.c"};
  call.cache_lookup = true;
  call.cache.dyndep = "/w/cache-dyndep";
  call.waiters = {{"k.o", {"/w/cache-object.o"}, {"/w/k.cudafe1.cpp", "/w/k.fatbin.c"}},
                  {"k.o.d", {}, {"a b"}}};
  call.argv = {"cicc", "--orig_src_file_name", "k.cu", "-o", "k.ptx"};
  return call;
}

}  // namespace

TEST_CASE("Parse reads every field of the command line Words writes") {
  StepInvocation call = EveryField();
  StepInvocation back = StepInvocation::Parse(call.Words());
  CHECK(back.cwd == call.cwd);
  CHECK(back.env_file == call.env_file);
  CHECK(back.depfile == call.depfile);
  CHECK(back.absolute_depfile);
  CHECK(back.kept_depfile == call.kept_depfile);
  CHECK(back.line_table_ptx == call.line_table_ptx);
  CHECK(back.outputs == call.outputs);
  CHECK(back.stamp == call.stamp);
  CHECK(back.fresh_outputs);
  CHECK(back.capture == call.capture);
  CHECK(back.failure_note == call.failure_note);
  CHECK(back.failure_notes == call.failure_notes);
  CHECK(back.manifest == call.manifest);
  CHECK(back.rss_log == call.rss_log);
  CHECK(back.temp_root == call.temp_root);
  CHECK(back.keeps_tmpdir);
  CHECK(back.split_share == call.split_share);
  REQUIRE(back.embedding);
  CHECK(back.embedding->early_object == call.embedding->early_object);
  CHECK(back.embedding->fatbin_c == call.embedding->fatbin_c);
  CHECK(back.embedding->fatbin_bytes == call.embedding->fatbin_bytes);
  CHECK(back.embedding->layout == FatbinLayout::kRelocatable);
  CHECK(back.fatbin_images == call.fatbin_images);
  CHECK(back.blank_disabled == call.blank_disabled);
  CHECK(back.never_keep_incbin);
  CHECK(back.response_key == call.response_key);
  CHECK(back.stub_include.host_source == call.stub_include.host_source);
  CHECK(back.stub_include.stub_name == call.stub_include.stub_name);
  CHECK(back.cache_lookup);
  CHECK(back.cache.dyndep == call.cache.dyndep);
  REQUIRE(back.waiters.size() == 2);
  for (size_t i = 0; i < 2; ++i) {
    CHECK(back.waiters[i].output == call.waiters[i].output);
    CHECK(back.waiters[i].on_hit == call.waiters[i].on_hit);
    CHECK(back.waiters[i].on_miss == call.waiters[i].on_miss);
  }
  CHECK(back.argv == call.argv);
}

TEST_CASE("options left at their defaults are not written, and read back as defaults") {
  StepInvocation call;
  call.argv = {"ptxas", "--stamp"};  // after `--`, words are the program's
  CHECK(call.Words() == std::vector<std::string>{"--", "ptxas", "--stamp"});
  StepInvocation back = StepInvocation::Parse(call.Words());
  CHECK(back.argv == call.argv);
  CHECK(back.stamp.empty());
  CHECK_FALSE(back.absolute_depfile);
  CHECK_FALSE(back.embedding);
}

TEST_CASE("the parts Words joins are what the generator writes apart") {
  StepInvocation call = EveryField();
  std::vector<std::string> joined = call.SharedWords();
  for (const std::vector<std::string>& part : {call.OwnWords(), call.outputs, call.CommandWords()}) {
    joined.insert(joined.end(), part.begin(), part.end());
  }
  CHECK(joined == call.Words());
  // The environment, the memory log, the temp root, the manifest and the failure notes, with their values.
  CHECK(call.SharedWords().size() == 10);
  CHECK(call.CommandWords().front() == "--");
}

TEST_CASE("a step's program gets a TMPDIR of its own under the temp root, the same each run") {
  StepInvocation call = EveryField();
  CHECK(StepTempDir(call) == "");  // through a launcher, which may start a daemon
  call.keeps_tmpdir = false;
  std::string dir = StepTempDir(call);
  CHECK(dir.rfind("/w/tmp/", 0) == 0);
  CHECK(StepTempDir(StepInvocation::Parse(call.Words())) == dir);
  StepInvocation other = call;
  other.outputs = {"k.cpp4.ii"};
  CHECK(StepTempDir(other) != dir);
  other.temp_root = "";
  CHECK(StepTempDir(other) == "");  // no root: the inherited TMPDIR
}

TEST_CASE("a command line Parse cannot read throws, naming what is wrong") {
  CHECK_THROWS_WITH_AS(StepInvocation::Parse({"--depfile"}), "--depfile needs a value",
                       std::invalid_argument);
  CHECK_THROWS_WITH_AS(StepInvocation::Parse({"--nope", "--", "cc"}), "unknown step option --nope",
                       std::invalid_argument);
  CHECK_THROWS_WITH_AS(StepInvocation::Parse({"--fatbin-layout", "flat", "--", "fatbinary"}),
                       "--fatbin-layout is whole or relocatable", std::invalid_argument);
  CHECK_THROWS_WITH_AS(StepInvocation::Parse({"out.o"}), "step needs -- COMMAND", std::invalid_argument);
  CHECK_THROWS_WITH_AS(StepInvocation::Parse({"--on-hit", "a.o", "--", "ccache"}),
                       "--on-hit follows no --waiter", std::invalid_argument);
}

TEST_CASE("a step's captured output reads back as written; a step that did not run has none") {
  std::string prefix = "/w/capture/step0-abc";
  fastcuda::testing::FakeFileSystem fs;
  CHECK_FALSE(ReadCapture(prefix, fs));
  WriteCapture(prefix, {"out\nput", "a warning\n", 3}, fs);
  std::optional<CapturedOutput> back = ReadCapture(prefix, fs);
  REQUIRE(back);
  CHECK(back->stdout_text == "out\nput");
  CHECK(back->stderr_text == "a warning\n");
  CHECK(back->exit_code == 3);
  WriteCapture(prefix, {"", "", 0}, fs);
  CHECK_FALSE(ReadCapture(prefix, fs));  // a success that printed nothing replays as nothing
  CHECK_FALSE(fs.IsFile(prefix + ".out"));
  CHECK_FALSE(fs.IsFile(prefix + ".err"));  // and leaves no file (nor directory) behind
  WriteCapture(prefix, {"", "", 2}, fs);
  back = ReadCapture(prefix, fs);
  REQUIRE(back);
  CHECK(back->exit_code == 2);
}

TEST_CASE(
    "a failure note reads back as written, by its TU, and gives Ninja's FAILED lines for the user's edge") {
  FailureNote note{"obj/k.cu.o", "/usr/local/cuda/bin/nvcc -c ../k.cu -o obj/k.cu.o", false};
  FailureNote other{"obj/j.cu.o", "nvcc -c ../j.cu -o obj/j.cu.o", true};
  const std::string notes = FormatFailureNotes({{"/w/j", other}, {"/w/k", note}});
  std::optional<FailureNote> back = FindFailureNote(notes, "/w/k");
  REQUIRE(back);
  CHECK(back->object == note.object);
  CHECK(back->command == note.command);
  CHECK_FALSE(back->exit_code_shown);
  // As Ninja 1.11 and 1.12 print it (red where it shows colour, trailing space), then 1.13.
  CHECK(FailedEdgeLines(note, 2) ==
        "\x1B[31mFAILED: \x1B[0mobj/k.cu.o \n/usr/local/cuda/bin/nvcc -c ../k.cu -o obj/k.cu.o\n");
  CHECK(FailedEdgeLines(*FindFailureNote(notes, "/w/j"), 2)
            .starts_with("\x1B[31mFAILED: [code=2] \x1B[0mobj/j.cu.o \n"));
  CHECK_FALSE(FindFailureNote(notes, "/w"));
  CHECK_FALSE(FindFailureNote("", "/w/k"));
  CHECK_FALSE(FindFailureNote("/w/k\ncode\nobj/k.cu.o\n", "/w/k"));
  CHECK_FALSE(FindFailureNote("/w/k\nred\nobj/k.cu.o\nnvcc\n", "/w/k"));
}

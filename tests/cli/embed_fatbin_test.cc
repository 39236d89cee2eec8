#include "src/cli/embed_fatbin.h"

#include <doctest/doctest.h>

#include "tests/test_support.h"

using namespace fastcuda;
using fastcuda::testing::FakeIo;
using fastcuda::testing::RecordedFatbin;

namespace {

/// nvcc's fatbinary command for k.cu, run in /b.
ProcessSpec Fatbinary() {
  return {{"fatbinary", "-64", "--image3=kind=elf,sm=80,file=k.cubin", "--embedded-fatbin=k.fatbin.c"}, "/b"};
}

/// A fatbinary on `fake` whose probe writes the `.fatbin.c` of `layout`
/// (a name in tests/transcripts).
void ProbeWrites(FakeIo& fake, const std::string& layout) {
  fake.runner.answer = [&fake, layout](const ProcessSpec& spec) {
    if (spec.argv == LayoutProbeCommand(Fatbinary().argv))
      fake.fs.Write("/b/k.fatbin.c", RecordedFatbin(layout));
    return ProcessResult{};
  };
}

/// The embedding of k.cu's fatbin into its early host object, in /b.
FatbinEmbedding Embedding(FatbinLayout layout) { return {"k.early.o", "k.fatbin.c", "k.fatbin", layout}; }

/// nvcc's host compile of k.cu, run in /b.
ProcessSpec HostCompile() { return {{"g++", "-m64", "-c", "k.cudafe1.cpp", "-o", "k.o"}, "/b"}; }

}  // namespace

TEST_CASE("on fakes: fatbinary probes the layout, then writes the bytes alone where it is the expected one") {
  FakeIo fake;
  ProbeWrites(fake, "whole.probe");
  CHECK(CreateFatbin(Fatbinary(), "/b/k.fatbin", FatbinLayout::kWhole, fake.runner, fake.fs).exit_code == 0);
  REQUIRE(fake.runner.ran.size() == 2);
  CHECK(fake.runner.ran[0].argv == LayoutProbeCommand(Fatbinary().argv));
  CHECK(fake.runner.ran[0].capture_output);  // what the probe says is no concern of the build's
  CHECK(fake.runner.ran[1].argv == BinaryFatbinCommand(Fatbinary().argv, "/b/k.fatbin"));
  CHECK(fake.runner.ran[1].cwd == "/b");
}

TEST_CASE("on fakes: a layout other than the placeholder's gets nvcc's whole .fatbin.c as well") {
  FakeIo fake;
  ProbeWrites(fake, "relocatable.probe");
  CreateFatbin(Fatbinary(), "/b/k.fatbin", FatbinLayout::kWhole, fake.runner, fake.fs);
  REQUIRE(fake.runner.ran.size() == 2);
  CHECK(fake.runner.ran[1].argv.back() == "--embedded-fatbin=k.fatbin.c");
}

TEST_CASE("on fakes: the bytes are assembled, linked to the early object, their symbol made local") {
  FakeIo fake(testing::FakeFileSystem({{"/b/k.fatbin.c", RecordedFatbin("whole.probe")}}));
  CHECK(EmbedFatbin(HostCompile(), Embedding(FatbinLayout::kWhole), fake.runner, fake.fs).exit_code == 0);
  CHECK(fake.fs.Read("/b/k.early.o.data.s") ==
        EmbeddingAssembly(RecordedFatbin("whole.probe"), FatbinLayout::kWhole, "/b/k.fatbin"));
  using Words = std::vector<std::string>;
  REQUIRE(fake.runner.ran.size() == 3);
  CHECK(fake.runner.ran[0].argv ==
        Words{"g++", "-c", "-x", "assembler", "/b/k.early.o.data.s", "-o", "k.early.o.data.o", "-m64"});
  CHECK(fake.runner.ran[1].argv ==
        Words{"g++", "-r", "-nostdlib", "-o", "k.o", "k.early.o", "k.early.o.data.o"});
  CHECK(fake.runner.ran[2].argv == Words{"objcopy", "--localize-symbol=fatbinData", "k.o"});
  for (const ProcessSpec& spec : fake.runner.ran) CHECK(spec.cwd == "/b");
}

TEST_CASE("on fakes: a failed command ends the embedding with its status") {
  FakeIo fake(testing::FakeFileSystem({{"/b/k.fatbin.c", RecordedFatbin("whole.probe")}}));
  fake.runner.answer = [](const ProcessSpec&) { return ProcessResult{1, 0, "", "as: error\n"}; };
  ProcessResult result = EmbedFatbin(HostCompile(), Embedding(FatbinLayout::kWhole), fake.runner, fake.fs);
  CHECK(result.exit_code == 1);
  CHECK(result.stderr_text == "as: error\n");
  CHECK(fake.runner.ran.size() == 1);
}

TEST_CASE("on fakes: a .fatbin.c not laid out as expected compiles the host code again with it") {
  FakeIo fake(testing::FakeFileSystem({{"/b/k.fatbin.c", RecordedFatbin("whole")}}));
  EmbedFatbin(HostCompile(), Embedding(FatbinLayout::kRelocatable), fake.runner, fake.fs);
  REQUIRE(fake.runner.ran.size() == 1);
  std::vector<std::string> again = HostCompile().argv;
  again.push_back("-DFASTCUDA_REAL_FATBIN_C=\"/b/k.fatbin.c\"");
  CHECK(fake.runner.ran[0].argv == again);
}

#include <doctest/doctest.h>

#include <stdexcept>

#include "src/base/shell_words.h"
#include "src/plan/intermediate_stubs.h"
#include "tests/test_support.h"

using namespace fastcuda;
using fastcuda::testing::FakeCommandRunner;
using fastcuda::testing::FakeFileSystem;

namespace {

/// A body, as a preprocessed file is.
const std::string kBody = "# 1 \"k.cu\"\n" + std::string(4000, '\n') + "int main() {}\n";

/// A reader of /w/k.ii, stubbed, run from the manifest /w/build.ninja.
StepInvocation Reader() {
  StepInvocation call;
  call.cwd = "/w";
  call.manifest = "/w/build.ninja";
  call.stubbed_inputs = {"k.ii"};
  call.outputs = {"k.ptx"};
  call.argv = {"cicc", "k.ii", "-o", "k.ptx"};
  return call;
}

StepInvocation Producer() {
  StepInvocation call;
  call.cwd = "/w";
  call.stubbed_by_reader = {"k.ii"};
  call.outputs = {"k.ii"};
  call.argv = {"gcc", "-E", "k.cu", "-o", "k.ii"};
  return call;
}

/// The manifest's producer of /w/k.ii, and no other.
std::optional<StepInvocation> FindProducer(const std::string& path) {
  if (path == "/w/k.ii") return Producer();
  return std::nullopt;
}

/// A disk where /w/k.ii is the stub of `body`.
FakeFileSystem StubbedDisk(const std::string& body) {
  FakeFileSystem disk({{"/w/k.ii", body}});
  StubConsumedInputs(Reader(), {}, false, disk);
  REQUIRE(ReadStub(disk, "/w/k.ii"));
  return disk;
}

}  // namespace

TEST_CASE("after its reader succeeded a body becomes its stub: empty, with the body's hash, size and mtime") {
  FakeFileSystem disk({{"/w/k.ii", kBody}});
  auto mtime = disk.MTime("/w/k.ii");
  StubConsumedInputs(Reader(), {}, false, disk);
  CHECK(disk.Read("/w/k.ii") == "");
  std::optional<IntermediateStub> stub = ReadStub(disk, "/w/k.ii");
  REQUIRE(stub);
  CHECK(stub->size == kBody.size());
  CHECK(stub->hash == StubOf(kBody).hash);
  CHECK(stub->hash.size() == 16);
  CHECK(disk.MTime("/w/k.ii") == mtime);
  CHECK(disk.files().size() == 1);                // nothing beside it
  StubConsumedInputs(Reader(), {}, false, disk);  // a stub stays as it is
  CHECK(ReadStub(disk, "/w/k.ii")->hash == stub->hash);
  CHECK(disk.MTime("/w/k.ii") == mtime);
}

TEST_CASE("an empty file is a stub only with the attribute; a body with a stale one is a body") {
  FakeFileSystem disk({{"/w/empty", ""}, {"/w/body", kBody}});
  CHECK_FALSE(ReadStub(disk, "/w/empty"));
  CHECK_FALSE(ReadStub(disk, "/w/none"));
  disk.SetAttribute("/w/body", std::string(kStubAttribute), StubOf(kBody).hash + " 9");
  CHECK_FALSE(ReadStub(disk, "/w/body"));
  disk.SetAttribute("/w/empty", std::string(kStubAttribute), "not a stub");
  CHECK_FALSE(ReadStub(disk, "/w/empty"));
}

TEST_CASE("a body is the same as itself and as its stub, no other") {
  FakeFileSystem disk = StubbedDisk(kBody);
  disk.Write("/w/whole", kBody);
  CHECK_FALSE(ReadStub(disk, "/w/whole"));  // a body: its bytes are compared, not a stub
  const IntermediateStub stub = *ReadStub(disk, "/w/k.ii");
  CHECK(StandsFor(stub, kBody));
  CHECK_FALSE(StandsFor(stub, kBody + " "));
  std::string other = kBody;
  other[other.size() - 3] = ';';
  CHECK_FALSE(StandsFor(stub, other));  // same size, other hash
  CHECK_FALSE(StandsFor(stub, ""));
}

TEST_CASE("a body stays whole where asked, without a manifest, or where the disk keeps no attributes") {
  FakeFileSystem disk({{"/w/k.ii", kBody}});
  StubConsumedInputs(Reader(), {}, true, disk);
  CHECK(disk.Read("/w/k.ii") == kBody);
  StepInvocation no_manifest = Reader();
  no_manifest.manifest.clear();
  StubConsumedInputs(no_manifest, {}, false, disk);
  CHECK(disk.Read("/w/k.ii") == kBody);
  disk.keeps_attributes = false;
  StubConsumedInputs(Reader(), {}, false, disk);
  CHECK(disk.Read("/w/k.ii") == kBody);
  CHECK(disk.files().size() == 1);
  StubConsumedInputs(Reader(), {0, {"/w/k.ii"}}, true, disk);  // one other than its stub goes
  CHECK_FALSE(disk.IsFile("/w/k.ii"));
}

TEST_CASE("a stubbed input is regenerated from its producer's step before its reader runs") {
  FakeFileSystem disk = StubbedDisk(kBody);
  std::vector<StepInvocation> ran;
  std::string writes = kBody;
  auto run = [&](const StepInvocation& producer) {
    ran.push_back(producer);
    disk.Write("/w/k.ii", writes);
    return 0;
  };
  Regenerated same = RegenerateStubbedInputs(Reader(), FindProducer, run, disk);
  REQUIRE(ran.size() == 1);
  CHECK(ran[0].restores_body);
  CHECK(ran[0].argv == Producer().argv);
  CHECK(same.exit_code == 0);
  CHECK(same.changed.empty());
  CHECK(disk.Read("/w/k.ii") == kBody);

  RegenerateStubbedInputs(Reader(), FindProducer, run, disk);  // a body: nothing to regenerate
  CHECK(ran.size() == 1);

  StubConsumedInputs(Reader(), {}, false, disk);
  writes = kBody + "// changed\n";
  Regenerated changed = RegenerateStubbedInputs(Reader(), FindProducer, run, disk);
  CHECK(changed.changed == std::vector<std::string>{"/w/k.ii"});
}

TEST_CASE("a producer that fails while regenerating fails its reader; a stub no step writes goes") {
  FakeFileSystem disk = StubbedDisk(kBody);
  CHECK(RegenerateStubbedInputs(
            Reader(), FindProducer, [](const StepInvocation&) { return 2; }, disk)
            .exit_code == 2);
  CHECK_THROWS_AS(RegenerateStubbedInputs(
                      Reader(), [](const std::string&) { return std::nullopt; },
                      [](const StepInvocation&) { return 0; }, disk),
                  std::runtime_error);
  CHECK_FALSE(disk.IsFile("/w/k.ii"));
}

TEST_CASE("the manifest names a stub's producer through ninja -t commands") {
  FakeCommandRunner runner;
  const std::string command = "/bin/fastcuda step " + JoinShellWords(Producer().Words());
  runner.answer = [&](const ProcessSpec& spec) {
    if (spec.argv.back() == "/w/k.ii") return ProcessResult{0, 0, command + "\n", "", 1};
    if (spec.argv.back() == "/w/two") return ProcessResult{0, 0, command + "\n" + command + "\n", "", 1};
    if (spec.argv.back() == "/w/gcc") return ProcessResult{0, 0, "gcc -E k.cu -o k.ii\n", "", 1};
    return ProcessResult{1, 0, "", "ninja: error: unknown target", 1};
  };
  auto find = [&](const std::string& path) {
    return ProducerInManifest(Reader(), path, "/usr/bin/ninja", runner);
  };
  std::optional<StepInvocation> producer = find("/w/k.ii");
  REQUIRE(producer);
  CHECK(producer->argv == Producer().argv);
  CHECK(producer->stubbed_by_reader == Producer().stubbed_by_reader);
  REQUIRE(runner.ran.size() == 1);
  CHECK(runner.ran[0].argv == std::vector<std::string>{"/usr/bin/ninja", "-f", "/w/build.ninja", "-t",
                                                       "commands", "-s", "/w/k.ii"});
  CHECK_FALSE(find("/w/unknown"));
  CHECK_FALSE(find("/w/two"));
  CHECK_FALSE(find("/w/gcc"));  // no fastcuda step
  StepInvocation no_manifest = Reader();
  no_manifest.manifest.clear();
  CHECK_FALSE(ProducerInManifest(no_manifest, "/w/k.ii", "/usr/bin/ninja", runner));
}

TEST_CASE("a stub's size for the views is its body's") {
  FakeFileSystem disk = StubbedDisk(kBody);
  disk.Write("/w/k.ptx", "ptx");
  CHECK(BodySize(disk, "/w/k.ii") == kBody.size());
  CHECK(BodySize(disk, "/w/k.ptx") == 3u);
  CHECK_FALSE(BodySize(disk, "/w/none"));
}

TEST_CASE("an empty stubbed input, a stub whose attribute a copy dropped, is regenerated, never read empty") {
  FakeFileSystem disk({{"/w/k.ii", ""}});  // as `tar` without --xattrs restores a stub
  int runs = 0;
  auto run = [&](const StepInvocation&) {
    ++runs;
    disk.Write("/w/k.ii", kBody);
    return 0;
  };
  Regenerated lost = RegenerateStubbedInputs(Reader(), FindProducer, run, disk);
  CHECK(runs == 1);
  CHECK(disk.Read("/w/k.ii") == kBody);
  CHECK(lost.changed == std::vector<std::string>{"/w/k.ii"});  // its producer runs again next build
}

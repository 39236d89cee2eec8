#include <doctest/doctest.h>

#include <stdexcept>

#include "src/base/shell_words.h"
#include "src/graph/stubbed_intermediates.h"
#include "src/plan/intermediate_stubs.h"
#include "tests/test_support.h"

using namespace fastcuda;
using fastcuda::testing::FakeFileSystem;

namespace {

/// A body longer than its stub, as a preprocessed file is.
const std::string kBody = "# 1 \"k.cu\"\n" + std::string(4000, '\n') + "int main() {}\n";

/// A reader of /w/k.ii, stubbed; its producer's recipe beside it.
StepInvocation Reader() {
  StepInvocation call;
  call.cwd = "/w";
  call.stubbed_inputs = {"k.ii"};
  call.outputs = {"k.ptx"};
  call.argv = {"cicc", "k.ii", "-o", "k.ptx"};
  return call;
}

StepInvocation Producer();

/// What the producer records.
std::string Recipe() { return JoinShellWords(Producer().Words()) + "\n"; }

/// The stub of `body`, with the producer's recipe.
std::string Stub(const std::string& body) { return FormatStub(StubOf(body, Recipe())); }

StepInvocation Producer() {
  StepInvocation call;
  call.cwd = "/w";
  call.recipe_outputs = {"k.ii"};
  call.outputs = {"k.ii"};
  call.argv = {"gcc", "-E", "k.cu", "-o", "k.ii"};
  return call;
}

}  // namespace

TEST_CASE("a stub records its body's hash and size and its recipe, and says what it is") {
  std::string stub = Stub(kBody);
  std::optional<IntermediateStub> parsed = ParseStub(stub);
  REQUIRE(parsed);
  CHECK(parsed->size == kBody.size());
  CHECK(parsed->hash.size() == 16);
  CHECK(parsed->recipe == Recipe());
  CHECK(stub.find(kKeepIntermediatesVariable) != std::string::npos);
  CHECK_FALSE(ParseStub(kBody));
  CHECK_FALSE(ParseStub(""));
  CHECK_FALSE(ParseStub(stub.substr(0, stub.find("size"))));
}

TEST_CASE("a body is the same as itself and as its stub, no other") {
  CHECK(SameBody(kBody, kBody));
  CHECK(SameBody(Stub(kBody), kBody));
  CHECK_FALSE(SameBody(Stub(kBody), kBody + " "));
  std::string other = kBody;
  other[other.size() - 3] = ';';
  CHECK_FALSE(SameBody(Stub(kBody), other));  // same size, other hash
  CHECK_FALSE(SameBody(kBody, Stub(kBody)));
}

TEST_CASE("after its reader succeeded a body becomes its stub, with the body's mtime and its recipe") {
  FakeFileSystem disk({{"/w/k.ii", kBody}, {RecipePath("/w/k.ii"), Recipe()}});
  auto mtime = disk.MTime("/w/k.ii");
  StubConsumedInputs(Reader(), {}, false, disk);
  CHECK(disk.Read("/w/k.ii") == Stub(kBody));
  CHECK(disk.MTime("/w/k.ii") == mtime);
  CHECK_FALSE(disk.IsFile(RecipePath("/w/k.ii")));
  StubConsumedInputs(Reader(), {}, false, disk);  // a stub stays as it is
  CHECK(disk.Read("/w/k.ii") == Stub(kBody));
}

TEST_CASE("a body shorter than its stub stays whole") {
  FakeFileSystem disk({{"/w/k.ii", "int x;\n"}, {RecipePath("/w/k.ii"), Recipe()}});
  StubConsumedInputs(Reader(), {}, false, disk);
  CHECK(disk.Read("/w/k.ii") == "int x;\n");
}

TEST_CASE("a body stays whole where asked, or without a recipe; one other than its stub goes") {
  FakeFileSystem disk({{"/w/k.ii", kBody}});
  StubConsumedInputs(Reader(), {}, false, disk);
  CHECK(disk.Read("/w/k.ii") == kBody);
  disk.Write(RecipePath("/w/k.ii"), Recipe());
  StubConsumedInputs(Reader(), {}, true, disk);
  CHECK(disk.Read("/w/k.ii") == kBody);
  StubConsumedInputs(Reader(), {0, {"/w/k.ii"}}, true, disk);
  CHECK_FALSE(disk.IsFile("/w/k.ii"));
  CHECK_FALSE(disk.IsFile(RecipePath("/w/k.ii")));
}

TEST_CASE("a producer records its command beside a body, and in a stub the body came out as") {
  FakeFileSystem disk({{"/w/k.ii", kBody}});
  WriteRecipes(Producer(), disk);
  CHECK(disk.Read(RecipePath("/w/k.ii")) == Recipe());
  StepInvocation back = StepInvocation::Parse(SplitShellWords(Recipe()));
  CHECK(back.argv == Producer().argv);
  CHECK(back.recipe_outputs == Producer().recipe_outputs);

  disk.Write("/w/k.ii", FormatStub(StubOf(kBody, "an older command\n")));
  auto mtime = disk.MTime("/w/k.ii");
  WriteRecipes(Producer(), disk);
  CHECK(disk.Read("/w/k.ii") == Stub(kBody));
  CHECK(disk.MTime("/w/k.ii") == mtime);
  CHECK_FALSE(disk.IsFile(RecipePath("/w/k.ii")));
}

TEST_CASE("a stubbed input is regenerated from its producer's recipe before its reader runs") {
  FakeFileSystem disk({{"/w/k.ii", Stub(kBody)}});
  std::vector<StepInvocation> ran;
  std::string writes = kBody;
  auto run = [&](const StepInvocation& producer) {
    ran.push_back(producer);
    disk.Write("/w/k.ii", writes);
    return 0;
  };
  Regenerated same = RegenerateStubbedInputs(Reader(), run, disk);
  REQUIRE(ran.size() == 1);
  CHECK(ran[0].restores_body);
  CHECK(ran[0].argv == Producer().argv);
  CHECK(same.exit_code == 0);
  CHECK(same.changed.empty());
  CHECK(disk.Read("/w/k.ii") == kBody);

  RegenerateStubbedInputs(Reader(), run, disk);  // a body: nothing to regenerate
  CHECK(ran.size() == 1);

  disk.Write("/w/k.ii", Stub(kBody));
  writes = kBody + "// changed\n";
  Regenerated changed = RegenerateStubbedInputs(Reader(), run, disk);
  CHECK(changed.changed == std::vector<std::string>{"/w/k.ii"});
}

TEST_CASE("a producer that fails while regenerating fails its reader; a stub without recipe goes") {
  FakeFileSystem disk({{"/w/k.ii", Stub(kBody)}});
  CHECK(RegenerateStubbedInputs(
            Reader(), [](const StepInvocation&) { return 2; }, disk)
            .exit_code == 2);
  disk.Write("/w/k.ii", FormatStub(StubOf(kBody, "")));
  CHECK_THROWS_AS(RegenerateStubbedInputs(
                      Reader(), [](const StepInvocation&) { return 0; }, disk),
                  std::runtime_error);
  CHECK_FALSE(disk.IsFile("/w/k.ii"));
}

TEST_CASE("a stub's size for the views is its body's") {
  FakeFileSystem disk({{"/w/k.ii", Stub(kBody)}, {"/w/k.ptx", "ptx"}});
  CHECK(BodySize(disk, "/w/k.ii") == kBody.size());
  CHECK(BodySize(disk, "/w/k.ptx") == 3u);
  CHECK_FALSE(BodySize(disk, "/w/none"));
}

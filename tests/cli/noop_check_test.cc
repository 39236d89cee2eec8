#include "src/cli/noop_check.h"

#include <doctest/doctest.h>

#include <string>

#include "ninja-gen/manifest_parser.h"
#include "src/base/directory_file_system.h"
#include "src/base/ninja_deps.h"
#include "src/base/ninja_log.h"
#include "src/plan/graph_dir.h"
#include "src/plan/source_reads.h"
#include "tests/test_support.h"

using namespace fastcuda;
using fastcuda::testing::FakeFileSystem;
using fastcuda::testing::FakeIo;

namespace {

/// A generator's manifest in /m, made again by CMake's kind of edge: its
/// inputs declared by phony edges of no inputs, and, with `globs`, the glob
/// check whose phony `force` never exists.
std::string RegeneratedManifest(bool globs) {
  std::string text =
      "rule RERUN\n  command = cmake --regenerate\n  description = Re-running CMake...\n  generator = 1\n"
      "rule CC\n  command = cc -c $in -o $out\n"
      "build a.o: CC a.c\n"
      "build build.ninja: RERUN | CMakeLists.txt" +
      std::string(globs ? " verify_globs" : "") +
      "\n  pool = console\n"
      "build CMakeLists.txt: phony\n"
      "default a.o\n";
  if (globs) {
    text +=
        "rule VERIFY\n  command = cmake -P VerifyGlobs.cmake\n  restat = 1\n"
        "build verify_globs: VERIFY | force\n"
        "build force: phony\n";
  }
  return text;
}

Manifest ManifestIn(FakeIo& fake, const std::string& text) {
  fake.fs.Write("/m/build.ninja", text);
  fake.fs.Write("/m/CMakeLists.txt", "project(x)");
  return ReadManifest(DirectoryFileSystem(fake.fs, "/m"), "build.ninja");
}

/// /m with its rewrite written as PlanRewrite would (no steps read a source),
/// its copy newer than the manifest; Ninja at /opt/ninja.
NoopCheck RewriteWithCheck(FakeIo& fake, bool globs) {
  fake.environment["FASTCUDA_NINJA"] = "/opt/ninja";
  NinjaArguments arguments = ParseNinjaArguments({"-C", "/m"});
  Manifest manifest = ManifestIn(fake, RegeneratedManifest(globs));
  NoopCheck check = NoopCheckOf(manifest, arguments, {"/opt/fastcuda"}, fake.fs);
  fake.fs.Write("/opt/fastcuda", "");
  fake.fs.Write(NoopCheckPath("/m/.fastcuda"), FormatNoopCheck(check));
  fake.fs.Write("/m/.fastcuda/build.ninja", "");
  fake.fs.Write(NinjaLogSourcePath("/m/.fastcuda"), "/m/.ninja_log");
  return check;
}

ProcessSpec NinjaOf(const FakeIo& fake) {
  ProcessSpec ninja;
  ninja.argv = {fake.environment.at("FASTCUDA_NINJA")};
  return ninja;
}

std::optional<int> Ask(FakeIo& fake, std::vector<std::string> args = {"-C", "/m"}) {
  return PlainNinjaFindsNothingToDo(ParseNinjaArguments(args), "/m/.fastcuda", NinjaOf(fake), fake.io);
}

ProcessResult Printed(std::string text) {
  ProcessResult result;
  result.stdout_text = std::move(text);
  return result;
}

}  // namespace

TEST_CASE("noop check: its file reads back as written; another text is none") {
  NoopCheck check;
  check.regeneration = ManifestRegeneration::kAlways;
  check.copy_inputs = {"/m/build.ninja", "/m/a b.ninja"};
  std::optional<NoopCheck> back = ParseNoopCheck(FormatNoopCheck(check));
  REQUIRE(back);
  CHECK(back->regeneration == ManifestRegeneration::kAlways);
  CHECK(back->copy_inputs == check.copy_inputs);
  CHECK_FALSE(ParseNoopCheck(""));
  CHECK_FALSE(ParseNoopCheck("regeneration sometimes\n"));
  CHECK_FALSE(ParseNoopCheck("regeneration none\ninput /x\nother\n"));
}

TEST_CASE("noop check: a glob check makes the regeneration run in every build; declared inputs do not") {
  FakeIo checked;
  NoopCheck plain = NoopCheckOf(ManifestIn(checked, RegeneratedManifest(false)),
                                ParseNinjaArguments({"-C", "/m"}), {"tool"}, checked.fs);
  CHECK(plain.regeneration == ManifestRegeneration::kChecked);
  CHECK(plain.copy_inputs == std::vector<std::string>{"/m/build.ninja", "/m/tool"});
  FakeIo globbed;
  CHECK(NoopCheckOf(ManifestIn(globbed, RegeneratedManifest(true)), ParseNinjaArguments({"-C", "/m"}), {},
                    globbed.fs)
            .regeneration == ManifestRegeneration::kAlways);
  FakeIo none;
  CHECK(NoopCheckOf(ManifestIn(none, "rule CC\n  command = cc\nbuild a.o: CC a.c\n"),
                    ParseNinjaArguments({"-C", "/m"}), {}, none.fs)
            .regeneration == ManifestRegeneration::kNone);
}

TEST_CASE("noop check: the regeneration probe holds the manifest's own edges alone, with a log of its own") {
  FakeIo fake;
  Manifest manifest = ManifestIn(fake, RegeneratedManifest(true));
  std::optional<std::string> probe = NoopRegenerationText(manifest, ParseNinjaArguments({"-C", "/m"}));
  REQUIRE(probe);
  FakeFileSystem files{{"/m/.fastcuda/noop-regeneration.ninja", *probe}};
  Manifest read = ReadManifest(DirectoryFileSystem(files, "/m"), ".fastcuda/noop-regeneration.ninja");
  std::vector<std::string> outputs;
  for (const ManifestEdge& edge : read.edges) outputs.push_back(edge.outputs.front());
  CHECK(outputs == std::vector<std::string>{"build.ninja", "CMakeLists.txt", "verify_globs", "force",
                                            ".fastcuda/noop-regeneration.ninja", kNoopNothingTarget});
  CHECK(EvaluateEdgeVariable(read, read.edges[0], "command") == "cmake --regenerate");
  CHECK(EvaluateEdgeVariable(read, read.edges[0], "pool") == "console");
  CHECK(EvaluateEdgeVariable(read, read.edges[2], "restat") == "1");
  CHECK(LookupScopeVariable(read, 0, "builddir") == ".fastcuda/noop-regeneration.ninja.d");
  // Ninja would need what a depfile names: no probe.
  std::string text = RegeneratedManifest(false);
  text.insert(text.find("  generator = 1\n"), "  depfile = build.ninja.d\n");
  Manifest with_depfile = ManifestIn(fake, text);
  CHECK_FALSE(NoopRegenerationText(with_depfile, ParseNinjaArguments({"-C", "/m"})));
}

TEST_CASE("noop check: the probe includes the manifest and names its defaults") {
  FakeIo fake;
  std::string probe =
      NoopProbeText(ManifestIn(fake, RegeneratedManifest(false)), ParseNinjaArguments({"-C", "/m"}));
  CHECK(probe.find("\ninclude build.ninja\n") != std::string::npos);
  CHECK(probe.find("build fastcuda_noop_defaults: phony a.o\n") != std::string::npos);
}

TEST_CASE("noop check on fakes: plain Ninja's dry run finding no work is the answer, printed") {
  FakeIo fake;
  RewriteWithCheck(fake, false);
  fake.runner.answer = [](const ProcessSpec&) {
    return Printed("ninja: Entering directory `/m'\nninja: no work to do.\n");
  };
  CHECK(Ask(fake, {"-C", "/m", "-j", "3"}) == 0);
  REQUIRE(fake.runner.ran.size() == 1);
  CHECK(fake.runner.ran[0].argv == std::vector<std::string>{"/opt/ninja", "-C", "/m", "-f",
                                                            ".fastcuda/noop.ninja", "-n", "-j", "3",
                                                            kNoopDefaultsTarget, "build.ninja"});
  CHECK(fake.runner.ran[0].capture_output);
  // Targets of the user's are asked about instead of the defaults.
  fake.runner.ran.clear();
  CHECK(Ask(fake, {"-C", "/m", "a.o"}) == 0);
  CHECK(fake.runner.ran[0].argv.back() == "build.ninja");
  CHECK(fake.runner.ran[0].argv[fake.runner.ran[0].argv.size() - 2] == "a.o");
}

TEST_CASE("noop check on fakes: work to do, a dry run or debugging of the user's, or no check: no answer") {
  FakeIo fake;
  RewriteWithCheck(fake, false);
  fake.runner.answer = [](const ProcessSpec&) { return Printed("[1/1] CC a.c\n"); };
  CHECK_FALSE(Ask(fake));
  fake.runner.ran.clear();
  CHECK_FALSE(Ask(fake, {"-C", "/m", "-n"}));
  CHECK_FALSE(Ask(fake, {"-C", "/m", "-d", "explain"}));
  CHECK_FALSE(Ask(fake, {"-C", "/m", "-t", "targets"}));
  CHECK(fake.runner.ran.empty());
  fake.fs.Remove(NoopCheckPath("/m/.fastcuda"));
  CHECK_FALSE(Ask(fake));
  CHECK(fake.runner.ran.empty());
}

TEST_CASE(
    "noop check on fakes: a file the copy came from is newer, or a source changed since read: no answer") {
  FakeIo fake;
  RewriteWithCheck(fake, false);
  fake.runner.answer = [](const ProcessSpec&) { return Printed("ninja: no work to do.\n"); };
  fake.fs.Touch("/opt/fastcuda");  // a new fastcuda: the rewrite's Ninja would rewrite
  CHECK_FALSE(Ask(fake));
  fake.fs.Write("/m/.fastcuda/build.ninja", "");
  CHECK(Ask(fake) == 0);
  // A step read a.c, which changed as it ran.
  fake.fs.Write("/m/.ninja_deps", FormatNinjaDepsLog({{"t/a.ii", {"a.c"}}}));
  fake.fs.Write(SourceReadsPath("/m/.fastcuda"), SourceReadLine(fake.fs.ClockNow() + 1, "t/a.ii"));
  fake.fs.Write("/m/a.c", "int a;");
  fake.runner.ran.clear();
  CHECK_FALSE(Ask(fake));
  CHECK(fake.runner.ran.empty());
}

TEST_CASE("noop check on fakes: a glob check runs for real first; CMake run again hands its record over") {
  FakeIo fake;
  RewriteWithCheck(fake, true);
  fake.fs.Write("/m/.ninja_log", "# ninja log v5\n");
  fake.runner.answer = [&](const ProcessSpec& spec) {
    if (spec.argv[4] == ".fastcuda/noop-regeneration.ninja") {
      CHECK(spec.argv.back() == kNoopNothingTarget);
      return Printed("[0/2] Re-checking globbed directories...\nninja: no work to do.\n");
    }
    return Printed("ninja: no work to do.\n");
  };
  CHECK(Ask(fake) == 0);
  REQUIRE(fake.runner.ran.size() == 2);
  CHECK(fake.runner.ran[1].argv.back() == kNoopDefaultsTarget);  // the dry run leaves the manifest alone
  // The check found new sources: CMake wrote the manifest again, and its
  // record is in the probe's log.
  fake.runner.ran.clear();
  fake.runner.answer = [&](const ProcessSpec&) {
    fake.fs.Write("/m/build.ninja", "");
    fake.fs.Write("/m/.fastcuda/noop-regeneration.ninja.d/.ninja_log",
                  "# ninja log v5\n" + FormatNinjaLogRecord({1, 2, 3, "build.ninja", 0x77}));
    return Printed("[1/2] Re-running CMake...\n-- Configuring done\nninja: no work to do.\n");
  };
  CHECK_FALSE(Ask(fake));
  CHECK(fake.runner.ran.size() == 1);
  CHECK(LatestRecordsOf(*fake.fs.Read("/m/.ninja_log")).at("build.ninja").mtime == 3);
  CHECK_FALSE(fake.fs.IsFile("/m/.fastcuda/noop-regeneration.ninja.d/.ninja_log"));
  // A regeneration that fails is plain Ninja's failure.
  fake.runner.answer = [](const ProcessSpec&) { return ProcessResult{1}; };
  CHECK(Ask(fake) == 1);
}

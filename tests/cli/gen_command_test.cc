#include <doctest/doctest.h>

#include "src/base/kept_depfile.h"
#include "src/cli/build_command.h"
#include "src/cli/gen_command.h"
#include "src/nvcc/compile_database.h"
#include "src/plan/graph_dir.h"
#include "src/plan/launcher_build.h"
#include "src/plan/nvcc_call.h"
#include "src/plan/tu_record.h"
#include "tests/test_support.h"

using namespace fastcuda;
using fastcuda::testing::CountMatches;
using fastcuda::testing::FakeDryrunRunner;
using fastcuda::testing::FakeFileSystem;

namespace {

const char* kDatabase = R"([
  {"directory": "/build", "file": "/src/a.cu", "command": "nvcc -c /src/a.cu -o obj/a.o"},
  {"directory": "/build", "file": "/src/b.cu", "command": "nvcc -c /src/b.cu -o obj/b.o"}
])";

GenOptions Options() {
  return ParseGenOptions({"--compdb", "/build/db.json", "--out", "/build/fc", "-j", "2"}, {});
}

GenerationContext Context(std::map<std::string, std::string> environment = {}) {
  return {std::move(environment), "/bin/fastcuda", false,
          MachineLimits{4 << 20, "MemAvailable in /proc/meminfo", 4, "the machine's cores"},
          [](const std::string&) { return ""; }};
}

/// Generates into `disk` as `fastcuda gen` would.
Generation Generate(FakeFileSystem& disk, const FakeDryrunRunner& runner, const GenerationContext& context) {
  Generation generation = GenerateForDatabase(Options(), context, runner, disk);
  WriteGeneration(generation, "/build/fc", disk);
  return generation;
}

}  // namespace

TEST_CASE("gen on fakes: the manifest, the kept files, the cache and the key, with no nvcc run") {
  FakeFileSystem disk({{"/build/db.json", kDatabase}});
  FakeDryrunRunner runner;
  Generation generation = Generate(disk, runner, Context({{"CPATH", "/inc"}, {"HOME", "/root"}}));
  CHECK(runner.calls == 2);
  CHECK(generation.report ==
        "fastcuda: 2 CUDA TUs (1 command shapes, 2 dryruns run, 0 cached), "
        "0 other entries left out\n");
  const std::string manifest = disk.Read("/build/fc/build.ninja").value_or("");
  CHECK(CountMatches(manifest, R"(desc = HOST_CC /src/[ab]\.cu)") == 2);
  CHECK(manifest.find("/bin/fastcuda") != std::string::npos);
  std::vector<KeptFiles> kept = ParseKeptFiles(disk.Read(KeptFilesPath("/build/fc")).value_or(""));
  REQUIRE(kept.size() == 2);
  CHECK(kept[0].objects == std::vector<std::string>{"/build/obj/a.o"});
  CHECK(disk.Read(GenCommandPath("/build/fc")).value_or("").find("CPATH=/inc\n") != std::string::npos);
  CHECK(disk.Read(NoHistoryPath("/build/fc")) == "0");
  std::optional<PlannedLimits> planned =
      ParsePlannedLimits(disk.Read(PlannedLimitsPath("/build/fc")).value_or(""));
  REQUIRE(planned);
  CHECK(planned->memory_budget_kib == (4 << 20) / 100 * 85);
  CHECK(planned->memory_source == "85 % of MemAvailable in /proc/meminfo");
  CHECK(planned->jobs == 2);
  CHECK(planned->jobs_source == "asked for (-j or FASTCUDA_JOBS)");

  // Again with the same inputs: every dryrun comes from the cache.
  CHECK(Generate(disk, runner, Context({{"CPATH", "/inc"}})).report.find("0 dryruns run, 2 cached") !=
        std::string::npos);
  CHECK(runner.calls == 2);
  // A changed CPATH plans anew.
  Generate(disk, runner, Context({{"CPATH", "/other"}}));
  CHECK(runner.calls == 4);
}

TEST_CASE(
    "gen on fakes: for a launcher that builds the graph, steps save their output and the TUs are listed") {
  FakeFileSystem disk({{"/build/db.json", kDatabase}});
  GenOptions options =
      ParseGenOptions({"--compdb", "/build/db.json", "--out", "/build/fc", "--launcher-builds"}, {});
  CHECK(options.launcher_records);
  WriteGeneration(GenerateForDatabase(options, Context(), FakeDryrunRunner(), disk), "/build/fc", disk);
  std::vector<GraphObject> objects = ParseGraphObjects(disk.Read(GraphObjectsPath("/build/fc")).value_or(""));
  REQUIRE(objects.size() == 2);
  CHECK(objects[0].object == "/build/obj/a.o");
  CHECK(objects[0].source == "/src/a.cu");
  std::optional<TuRecord> record = ReadTuRecord(disk, "/build/fc", "/build/obj/a.o");
  REQUIRE(record);
  REQUIRE_FALSE(record->captures.empty());
  // Every step's command saves its output where the record says.
  const std::string manifest = disk.Read("/build/fc/build.ninja").value_or("");
  for (const std::string& capture : record->captures) {
    CHECK(manifest.find("/capture/" + capture.substr(capture.rfind('/') + 1)) != std::string::npos);
  }
  // A header list that no kept depfile names any more goes at the next generation; a named one stays.
  REQUIRE_FALSE(record->depfiles.empty());
  KeepDepfile(disk, record->depfiles.front(), {{"a.ii"}, {record->source, "/inc/a.h"}}, record->source,
              false);
  const std::string lists = SharedHeadersDir(record->depfiles.front());
  disk.Write(lists + "/0123456789abcdef", "a list of headers that changed since");
  WriteGeneration(GenerateForDatabase(options, Context(), FakeDryrunRunner(), disk), "/build/fc", disk);
  CHECK(disk.FilesIn(lists).size() == 1);
  CHECK(KeptDependencies(disk, record->depfiles.front(), record->source)->size() == 2);
  std::vector<std::string> regenerate = GenCommandLine(options);  // fastcuda gen ...
  CHECK(GenCommandLine(ParseGenOptions({regenerate.begin() + 2, regenerate.end()}, {})) == regenerate);

  // Without it (the Makefile generator's custom target), steps print as they run.
  WriteGeneration(GenerateForDatabase(Options(), Context(), FakeDryrunRunner(), disk), "/build/fc", disk);
  CHECK(disk.Read("/build/fc/build.ninja").value_or("").find("/capture/") == std::string::npos);
}

TEST_CASE("gen on fakes: two entries with one output are refused, naming both") {
  FakeFileSystem disk({{"/build/db.json", R"([
    {"directory": "/build", "file": "a.cu", "command": "nvcc -c a.cu -o x.o"},
    {"directory": "/build", "file": "b.cu", "command": "nvcc -c b.cu -o ./x.o"}])"}});
  CHECK_THROWS_WITH_AS(GenerateForDatabase(Options(), Context(), FakeDryrunRunner(), disk),
                       "the entries for a.cu and b.cu both write /build/x.o; give each its own -o",
                       CompileDatabaseError);
}

TEST_CASE("build on fakes: it generates when the manifest, the key or the history says so") {
  FakeFileSystem disk({{"/build/db.json", kDatabase}});
  FakeDryrunRunner runner;
  CHECK(NeedsGeneration(Options(), {}, disk, runner));
  Generate(disk, runner, Context({{"CPATH", "/inc"}}));
  CHECK(
      NeedsGeneration(Options(), {}, disk, runner));  // no history yet: the first build's log will have some
  disk.Remove(NoHistoryPath("/build/fc"));
  CHECK_FALSE(NeedsGeneration(Options(), {{"CPATH", "/inc"}, {"TERM", "dumb"}}, disk, runner));
  CHECK(NeedsGeneration(Options(), {{"CPATH", "/other"}}, disk, runner));
  CHECK(NeedsGeneration(Options(), {{"CPATH", "/inc"}, {"PTXAS_FLAGS", "-O0"}}, disk, runner));
  runner.stamps["gcc"] = "2";  // another host compiler behind the same name
  CHECK(NeedsGeneration(Options(), {{"CPATH", "/inc"}}, disk, runner));
  runner.stamps.clear();
  disk.Write("/build/db.json", kDatabase);  // CMake configured again: the database is newer
  CHECK(NeedsGeneration(Options(), {{"CPATH", "/inc"}}, disk, runner));
}

TEST_CASE("build on fakes: a removed object takes its TU's intermediates with it, no other TU's") {
  FakeFileSystem disk({{"/build/db.json", kDatabase}});
  Generate(disk, FakeDryrunRunner(), Context());
  std::vector<KeptFiles> kept = ParseKeptFiles(disk.Read(KeptFilesPath("/build/fc")).value_or(""));
  REQUIRE(kept.size() == 2);
  for (const KeptFiles& tu : kept) {
    for (const std::string& path : tu.intermediates) disk.Write(path, "kept");
  }
  disk.Write("/build/obj/b.o", "object");  // a.o is missing
  RemoveOrphanedIntermediates("/build/fc", disk);
  for (const std::string& path : kept[0].intermediates) CHECK_FALSE(disk.IsFile(path));
  for (const std::string& path : kept[1].intermediates) CHECK(disk.IsFile(path));
}

TEST_CASE(
    "gen on fakes: with a whole-call cache, a target for the lookup pass and records that know the lookup") {
  FakeFileSystem disk({{"/build/db.json", R"([
    {"directory": "/build", "file": "/src/a.cu", "command": "ccache nvcc -c /src/a.cu -o obj/a.o"},
    {"directory": "/build", "file": "/src/b.cu", "command": "nvcc -c /src/b.cu -o obj/b.o"}])"}});
  GenOptions options =
      ParseGenOptions({"--compdb", "/build/db.json", "--out", "/build/fc", "--launcher-builds"}, {});
  WriteGeneration(GenerateForDatabase(options, Context(), FakeDryrunRunner(), disk), "/build/fc", disk);
  CHECK(disk.Read(LookupPassPath("/build/fc")) == "fastcuda_cache_lookups");
  const std::string work = WorkDirFor(TuRoot("/build/fc"), "/build/obj/a.o");
  const std::string manifest = disk.Read("/build/fc/build.ninja").value_or("");
  CHECK(manifest.find("build fastcuda_cache_lookups: phony " + work + "/cache-dyndep\n") !=
        std::string::npos);
  std::optional<TuRecord> record = ReadTuRecord(disk, "/build/fc", "/build/obj/a.o");
  REQUIRE(record);
  CHECK(record->cache_result == work + "/cache-result");
  CHECK(record->cache_depfile == work + "/cache-object.deps");
  CHECK(std::find(record->depfiles.begin(), record->depfiles.end(), record->cache_depfile) ==
        record->depfiles.end());

  // Without one: no target, and a build runs no pass.
  disk.Write("/build/db.json", kDatabase);
  WriteGeneration(GenerateForDatabase(Options(), Context(), FakeDryrunRunner(), disk), "/build/fc", disk);
  CHECK(disk.Read(LookupPassPath("/build/fc")) == "");
  CHECK(disk.Read("/build/fc/build.ninja").value_or("").find("fastcuda_cache_lookups") == std::string::npos);
}

TEST_CASE("a dry run's file is written where none is, or where it holds none of what it may") {
  Generation generation;
  generation.dry_run_files = {{"/g/miss-or-hit", {"miss", {"hit"}}},
                              {"/g/stale", {"miss", {"hit"}}},
                              {"/g/absent", {"miss", {"hit"}}},
                              {"/g/ladder", {"all missed", {}, /*keeps_any=*/true}}};
  FakeFileSystem disk(
      {{"/g/miss-or-hit", "hit"}, {"/g/stale", "an older graph's"}, {"/g/ladder", "some hit"}});
  WriteGeneration(generation, "/g", disk);
  CHECK(disk.Read("/g/miss-or-hit") == "hit");
  CHECK(disk.Read("/g/stale") == "miss");
  CHECK(disk.Read("/g/absent") == "miss");
  CHECK(disk.Read("/g/ladder") == "some hit");
}

TEST_CASE("--remote needs FastCuda's remote client beside the binary; the unit tests have none") {
  CHECK_THROWS_WITH_AS(
      ParseGenOptions(
          {"--compdb", "/build/db.json", "--out", "/build/fc", "--remote", "grpc://10.0.0.1:8980"}, {}),
      doctest::Contains("without its remote client"), std::invalid_argument);
}

TEST_CASE("gen on fakes: with remote device compiles, local and remote steps each have their share") {
  FakeFileSystem disk({{"/build/db.json", kDatabase}});
  FakeDryrunRunner runner;
  GenOptions options = ParseGenOptions({"--compdb", "/build/db.json", "--out", "/build/fc"}, {});
  options.launchers.device = RemoteLauncher("/opt/bin/fastcuda-remote", "grpc://h:1");
  std::map<std::string, std::string> environment = {{"FASTCUDA_REMOTE_JOBS", "12"}};
  WriteGeneration(GenerateForDatabase(options, Context(environment), runner, disk), "/build/fc", disk);
  const std::string manifest = disk.Read("/build/fc/build.ninja").value_or("");
  CHECK(manifest.find("pool fastcuda_local\n  depth = 4\n") != std::string::npos);
  CHECK(manifest.find("pool fastcuda_remote\n  depth = 12\n") != std::string::npos);
  CHECK(CountMatches(manifest, "pool = fastcuda_remote\n") == 3);  // CICC, PTXAS, CUDAFE: not FATBINARY
  // Without -j, Ninja runs both shares at once; -j still caps them.
  CHECK(GraphNinjaJobs(options, options.launchers, environment, 4) == 16);
  CHECK(GraphNinjaJobs(options, options.launchers, {}, 4) == 20);
  options.jobs = 6;
  CHECK(GraphNinjaJobs(options, options.launchers, environment, 4) == 6);
  CHECK(GraphNinjaJobs(Options(), Options().launchers, environment, 4) == 2);
  // The shares are the pools' depths: a changed one generates anew.
  CHECK(GenerationKey(options, environment) != GenerationKey(options, {}));
}

TEST_CASE("gen on fakes: sccache-dist's share is the steps its version runs, as the steps' launchers") {
  FakeFileSystem disk({{"/build/db.json", kDatabase}});
  FakeDryrunRunner runner;
  std::map<std::string, std::string> environment = {{"FASTCUDA_REMOTE_JOBS", "12"}};
  GenOptions options = ParseGenOptions({"--compdb", "/build/db.json", "--out", "/build/fc"}, {});
  options.launchers.host = options.launchers.device = {"/usr/bin/sccache"};
  GenerationContext context = Context(environment);
  context.launcher_version = [](const std::string&) { return "0.16.0"; };
  WriteGeneration(GenerateForDatabase(options, context, runner, disk), "/build/fc", disk);
  const std::string manifest = disk.Read("/build/fc/build.ninja").value_or("");
  // CICC, PTXAS and HOST_CC: sccache 0.16 runs them, not fatbinary; its
  // cudafe++ too, but only FastCuda's own client sends that one away.
  CHECK(CountMatches(manifest, "pool = fastcuda_remote\n") == 3);
  CHECK(CountMatches(manifest, "pool = fastcuda_local\n") >= 3);
  StepLaunchers unversioned = options.launchers;
  unversioned.host.clear();
  CHECK(GraphNinjaJobs(options, unversioned, environment, 4) == 0);  // an sccache of no known version
  CHECK(GraphNinjaJobs(options, VersionedLaunchers(unversioned, context.launcher_version), environment, 4) ==
        16);
}

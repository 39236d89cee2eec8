#include <doctest/doctest.h>

#include "src/cli/lookup_pass.h"
#include "src/plan/graph_dir.h"
#include "tests/test_support.h"

using namespace fastcuda;
using fastcuda::testing::FakeFileSystem;

namespace {

/// Two TUs with a whole-call cache lookup each, whose results `lookups`
/// writes: each a CACHE_LOOKUP, a device preprocessing and an object.
const char* kSteps = R"({"tus": [
  {"source": "a.cu", "steps": [{"kind": "CACHE_LOOKUP", "arch": "", "output": "a.result", "after": []},
    {"kind": "CPP_DEVICE", "arch": "compute_80", "output": "a.ii", "after": [0]},
    {"kind": "HOST_CC", "arch": "", "output": "a.o", "after": [0, 1]}]},
  {"source": "b.cu", "steps": [{"kind": "CACHE_LOOKUP", "arch": "", "output": "b.result", "after": []},
    {"kind": "CPP_DEVICE", "arch": "compute_80", "output": "b.ii", "after": [0]},
    {"kind": "HOST_CC", "arch": "", "output": "b.o", "after": [0, 1]}]}]})";

/// The Ninja runs of the passes before a first build of the graph in /g,
/// whose lookups find `outcome`; and whether they regenerated.
std::vector<std::vector<std::string>> Passes(const std::string& outcome, const std::string& target,
                                             bool* regenerated) {
  fastcuda::testing::FakeIo fake(FakeFileSystem({{NoHistoryPath("/g"), ""},
                                                 {StepsFilePath("/g"), kSteps},
                                                 {LookupPassPath("/g"), target},
                                                 {NinjaLogPath("/g"), "# ninja log v5\n"}}));
  FakeFileSystem& fs = fake.fs;
  std::vector<std::vector<std::string>> runs;
  auto run_ninja = [&](const std::vector<std::string>& targets) {
    runs.push_back(targets);
    if (targets == std::vector<std::string>{"fastcuda_cache_lookups"}) {
      fs.Write("/g/a.result", outcome);
      fs.Write("/g/b.result", outcome);
    }
    return 0;
  };
  *regenerated = false;
  CHECK(RunPassesBeforeBuild(
            "/g", 2, run_ninja,
            [&] {
              *regenerated = true;
              return 0;
            },
            fake.io) == 0);
  return runs;
}

}  // namespace

TEST_CASE(
    "the lookups run first; the first phase weighs what missed; the lookups again after it regenerated") {
  using Runs = std::vector<std::vector<std::string>>;
  bool regenerated = false;
  CHECK(Passes("miss", "fastcuda_cache_lookups", &regenerated) ==
        Runs{{"fastcuda_cache_lookups"}, {"a.ii", "b.ii"}, {"fastcuda_cache_lookups"}});
  CHECK(regenerated);
  // Every TU hit: nothing to weigh, nothing regenerated, no second pass.
  CHECK(Passes("hit", "fastcuda_cache_lookups", &regenerated) == Runs{{"fastcuda_cache_lookups"}});
  CHECK_FALSE(regenerated);
  // A graph without lookups: the first phase alone.
  CHECK(Passes("", "", &regenerated) == Runs{{"a.ii", "b.ii"}});
}

#include <doctest/doctest.h>

#include "src/cli/first_phase.h"
#include "src/plan/first_build_estimate.h"
#include "src/plan/graph_dir.h"
#include "src/plan/step_history.h"
#include "tests/test_support.h"

using namespace fastcuda;
using fastcuda::testing::FakeFileSystem;
using fastcuda::testing::FakeIo;

namespace {

/// A steps.json of two TUs, each a device preprocessing and an object
/// whose step waits for `object_after`.
std::string TwoTus(const std::string& object_after) {
  std::string text = R"({"tus": [)";
  for (std::string tu : {"a", "b"}) {
    text += std::string(tu == "a" ? "" : ",") + R"({"source": ")" + tu + R"(.cu", "steps": [)" +
            R"({"kind": "CPP_DEVICE", "arch": "compute_80", "output": ")" + tu + R"(.ii", "after": []},)" +
            R"({"kind": "HOST_CC", "arch": "", "output": ")" + tu + R"(.o", "after": [)" + object_after +
            R"(]},{"kind": "DEPFILE", "arch": "", "output": ")" + tu + R"(.d", "after": [0]}]})";
  }
  return text + "]}";
}

/// How many times the first phase of a fresh graph in /g with `steps_json` runs Ninja.
int NinjaRuns(const std::string& steps_json) {
  FakeIo fake(FakeFileSystem({{NoHistoryPath("/g"), ""}, {StepsFilePath("/g"), steps_json}}));
  int runs = 0;
  auto run_ninja = [&](const std::vector<std::string>&) {
    ++runs;
    return 0;
  };
  CHECK(RunFirstPhase(
            "/g", 2, run_ninja, [] { return 0; }, fake.io) == 0);
  return runs;
}

/// The targets of the first phase of the graph in /g that `fs` holds.
std::vector<std::string> WeighedTargets(FakeFileSystem fs) {
  FakeIo fake(std::move(fs));
  std::vector<std::string> weighed;
  auto run_ninja = [&](const std::vector<std::string>& targets) {
    weighed = targets;
    return 0;
  };
  CHECK(RunFirstPhase(
            "/g", 2, run_ninja, [] { return 0; }, fake.io) == 0);
  return weighed;
}

}  // namespace

TEST_CASE("a steps.json the first phase cannot read costs the estimates, not the build") {
  CHECK(NinjaRuns(TwoTus("0")) == 1);
  // An older FastCuda's: the object waits for the depfile step listed after it.
  CHECK(NinjaRuns(TwoTus("0, 2")) == 0);
  CHECK(NinjaRuns("{\"tus\": [") == 0);
}

TEST_CASE("the first phase weighs only the TUs whose whole-call cache lookup did not hit") {
  auto tus = [](const std::string& b_result) {
    std::string text = R"({"tus": [)";
    for (std::string tu : {"a", "b"}) {
      text += std::string(tu == "a" ? "" : ",") + R"({"source": ")" + tu + R"(.cu", "steps": [)" +
              R"({"kind": "CACHE_LOOKUP", "arch": "", "output": ")" + tu + R"(.result", "after": []},)" +
              R"({"kind": "CPP_DEVICE", "arch": "compute_80", "output": ")" + tu +
              R"(.ii", "after": [0]},{"kind": "HOST_CC", "arch": "", "output": ")" + tu +
              R"(.o", "after": [0, 1]}]})";
    }
    FakeFileSystem fs({{NoHistoryPath("/g"), ""},
                       {StepsFilePath("/g"), text + "]}"},
                       {"/g/a.result", "miss"},
                       {"/g/b.result", b_result}});
    return WeighedTargets(fs);
  };
  CHECK(tus("miss") == std::vector<std::string>{"a.ii", "b.ii"});
  CHECK(tus("hit").empty());  // one TU left: nothing to rank it against
}

TEST_CASE("a TU whose weighed step fails (its source not made yet) leaves the others' estimates") {
  FakeIo fake(FakeFileSystem({{NoHistoryPath("/g"), ""},
                              {StepsFilePath("/g"), TwoTus("0")},
                              {"/g/.ninja_log", "# ninja log v5\n"}}));
  FakeFileSystem& fs = fake.fs;
  auto run_ninja = [&](const std::vector<std::string>&) {
    fs.Write("/g/a.ii", "__global__ void k();");
    return 1;  // b.ii's step failed
  };
  int regenerated = 0;
  CHECK(RunFirstPhase(
            "/g", 2, run_ninja, [&] { return ++regenerated, 0; }, fake.io) == 0);
  CHECK(regenerated == 1);
  const std::string log = fs.Read("/g/.ninja_log").value_or("");
  CHECK(log.find("\ta.o\t") != std::string::npos);
  CHECK(log.find("\tb.o\t") != std::string::npos);
}

TEST_CASE("the first phase leaves out the TUs built only on request (not by the defaults)") {
  std::string text = R"({"tus": [)";
  for (std::string tu : {"a", "b", "c"}) {
    text += std::string(tu == "a" ? "" : ",") + R"({"source": ")" + tu + R"(.cu", )" +
            (tu == "c" ? R"("on_request": true, )" : "") + R"("steps": [)" +
            R"({"kind": "CPP_DEVICE", "arch": "compute_80", "output": ")" + tu + R"(.ii", "after": []},)" +
            R"({"kind": "HOST_CC", "arch": "", "output": ")" + tu + R"(.o", "after": [0]}]})";
  }
  FakeFileSystem fs({{NoHistoryPath("/g"), ""}, {StepsFilePath("/g"), text + "]}"}});
  CHECK(WeighedTargets(fs) == std::vector<std::string>{"a.ii", "b.ii"});
}

TEST_CASE("step times remembered from another build directory rank a first build without a first phase") {
  // The graph of a.cu (and b.cu) built in DIR: its steps.json, with source paths.
  auto steps_in = [](const std::string& dir, bool with_b) {
    std::string text = R"({"tus": [)";
    for (std::string tu : {"a", "b"}) {
      if (tu == "b" && !with_b) continue;
      text += std::string(tu == "a" ? "" : ",") + R"({"source": ")" + tu + R"(.cu", "source_path": "/src/)" +
              tu + R"(.cu", "steps": [{"kind": "CPP_DEVICE", "arch": "compute_80", "output": ")" + dir + "/" +
              tu + R"(.ii", "after": []},{"kind": "HOST_CC", "arch": "", "output": ")" + dir + "/" + tu +
              R"(.o", "after": [0]}]})";
    }
    return text + "]}";
  };
  const std::string first_build = "# ninja log v5\n0\t400\t5\t/old/a.ii\t1f\n400\t9400\t6\t/old/a.o\t2e\n";
  FakeIo fake(FakeFileSystem({{StepsFilePath("/old"), steps_in("/old", false)},
                              {"/old/.ninja_log", first_build},
                              {StepMemoryLogPath("/old"), StepMemoryLine("/old/a.o", 3000000, 8000)}}),
              {{"FASTCUDA_STEP_HISTORY", "/cache"}});
  FakeFileSystem& fs = fake.fs;
  RememberBuild("/old", fake.io);
  const std::string a_times = SourceTimesPath("/cache", "/src/a.cu");
  CHECK(fs.Read(a_times).value_or("").find("\"a.o\":9000") != std::string::npos);
  // A no-op build finds the log as it was: nothing written.
  fs.Write(a_times, "kept");
  RememberBuild("/old", fake.io);
  CHECK(fs.Read(a_times) == "kept");
  // An edit: only the records since then count (a.ii ran again; a.o did not).
  fs.Write(a_times, FormatSourceTimes({"/src/a.cu", {{"a.ii", 400}, {"a.o", 1}}, {{"a.o", 3000000}}, 1}));
  fs.Append("/old/.ninja_log", "0\t500\t7\t/old/a.ii\t1f\n");
  RememberBuild("/old", fake.io);
  CHECK(ParseSourceTimes(fs.Read(a_times).value_or(""), "/src/a.cu")->ms ==
        std::map<std::string, int64_t>{{"a.ii", 500}, {"a.o", 1}});
  // Ninja rewrote its log (recompacted) to the same length: all of it is read again.
  const std::string recompacted = "# ninja log v5\n0\t500\t7\t/old/a.ii\t1f\n400\t9400\t6\t/old/a.o\t2e\n";
  const std::string log_now = fs.Read("/old/.ninja_log").value_or("");
  fs.Write("/old/.ninja_log", recompacted + std::string(log_now.size() - recompacted.size(), '\n'));
  RememberBuild("/old", fake.io);
  CHECK(ParseSourceTimes(fs.Read(a_times).value_or(""), "/src/a.cu")->ms ==
        std::map<std::string, int64_t>{{"a.ii", 500}, {"a.o", 9000}});
  // Records that no build wrote (fastcuda ninja's handovers) are skipped.
  fs.Append("/old/.ninja_log", "0\t1\t8\t/old/a.o\t3d\n");
  SkipRecordsOfNoBuild("/old", fake.io);
  RememberBuild("/old", fake.io);
  CHECK(ParseSourceTimes(fs.Read(a_times).value_or(""), "/src/a.cu")->ms.at("a.o") == 9000);

  // A fresh graph of the same sources in /new: a.cu remembered, b.cu (a file
  // added since) not. No phase runs; b.cu is estimated as the mean remembered TU.
  fs.Write(NoHistoryPath("/new"), "");
  fs.Write(StepsFilePath("/new"), steps_in("/new", true));
  int ninja_runs = 0, regenerated = 0;
  CHECK(RunFirstPhase(
            "/new", 2, [&](const std::vector<std::string>&) { return ++ninja_runs, 0; },
            [&] { return ++regenerated, 0; }, fake.io) == 0);
  CHECK(ninja_runs == 0);
  CHECK(regenerated == 1);
  const std::string log = fs.Read("/new/.ninja_log").value_or("");
  CHECK(NinjaLogVersion(log) >= 5);  // no phase ran Ninja: the log begun as Ninja begins it
  CHECK(log.find("0\t9000\t0\t/new/a.o\t0\n") != std::string::npos);
  CHECK(log.find("0\t500\t0\t/new/a.ii\t0\n") != std::string::npos);
  CHECK(log.find("0\t9000\t0\t/new/b.o\t0\n") != std::string::npos);
  CHECK(OnlyEstimated(ParseFirstPhase(fs.Read(FirstPhasePath("/new")).value_or("")), log));
  // The object's peak too, for the memory budget the regeneration plans.
  CHECK(ParseStepMemoryLog(fs.Read(RememberedMemoryPath("/new")).value_or("")) ==
        StepMemory{{"/new/a.o", 3000000}});

  // With FASTCUDA_STEP_HISTORY=off the same fresh graph runs its first phase.
  fake.environment["FASTCUDA_STEP_HISTORY"] = "off";
  fs.Write("/new/.ninja_log", "# ninja log v5\n");
  fs.Remove(FirstPhasePath("/new"));
  CHECK(RunFirstPhase(
            "/new", 2, [&](const std::vector<std::string>&) { return ++ninja_runs, 0; }, [] { return 0; },
            fake.io) == 0);
  CHECK(ninja_runs == 1);
}

TEST_CASE("a clone at another path is ranked by the times its sources left at the first path") {
  FakeIo fake(
      FakeFileSystem({{NoHistoryPath("/g"), ""},
                      {SourceTimesPath("/cache", "/clone1/src/a.cu"),
                       FormatSourceTimes({"/clone1/src/a.cu", {{"a.ii", 300}, {"a.o", 7000}}, {}, 1})},
                      {StepsFilePath("/g"),
                       R"({"tus": [{"source": "a.cu", "source_path": "/clone2/src/a.cu", "steps": [)"
                       R"({"kind": "CPP_DEVICE", "arch": "compute_80", "output": "/g/a.ii", "after": []},)"
                       R"({"kind": "HOST_CC", "arch": "", "output": "/g/a.o", "after": [0]}]}]})"}}),
      {{"FASTCUDA_STEP_HISTORY", "/cache"}});
  FakeFileSystem& fs = fake.fs;
  int ninja_runs = 0;
  CHECK(RunFirstPhase(
            "/g", 2, [&](const std::vector<std::string>&) { return ++ninja_runs, 0; }, [] { return 0; },
            fake.io) == 0);
  CHECK(ninja_runs == 0);  // no first phase: the times are known
  CHECK(fs.Read("/g/.ninja_log").value_or("").find("0\t7000\t0\t/g/a.o\t0\n") != std::string::npos);
  CHECK_FALSE(fs.IsFile(SourceTimesPath("/cache", "/clone2/src/a.cu")));  // only a build writes its own
}

TEST_CASE("remembered times never replace a record of a step that this build directory ran") {
  // One TU whose graph never has step times of its own (nvcc run whole):
  // its object was built here, and the history remembers it too.
  const std::string steps = R"({"tus": [{"source": "k.cu", "source_path": "/src/k.cu", "steps": [)"
                            R"({"kind": "STEP", "arch": "", "output": "/g/k.a", "after": []}]}]})";
  const std::string log = "# ninja log v5\n0\t900\t5\t/g/k.a\t1f\n";
  FakeIo fake(
      FakeFileSystem({{StepsFilePath("/g"), steps}, {"/g/.ninja_log", log}, {NoHistoryPath("/g"), "0"}}),
      {{"FASTCUDA_STEP_HISTORY", "/cache"}});
  FakeFileSystem& fs = fake.fs;
  RememberBuild("/g", fake.io);
  REQUIRE(fs.IsFile(SourceTimesPath("/cache", "/src/k.cu")));
  int regenerated = 0;
  CHECK(RunFirstPhase(
            "/g", 2, [](const std::vector<std::string>&) { return 0; }, [&] { return ++regenerated, 0; },
            fake.io) == 0);
  CHECK(regenerated == 0);
  CHECK(fs.Read("/g/.ninja_log") == log);  // else Ninja would find k.a's command changed, and rerun it
}

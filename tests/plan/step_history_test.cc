#include <doctest/doctest.h>

#include "src/plan/critical_path.h"
#include "src/plan/step_history.h"

using namespace fastcuda;

namespace {

/// A TU of /src/NAME.cu whose steps write into `work_dir`.
RecordedTu Tu(const std::string& name, const std::string& work_dir) {
  return {name + ".cu",
          {{"CPP_DEVICE", "compute_90", work_dir + "/" + name + ".cpp1.ii", {}},
           {"CICC", "compute_90", work_dir + "/" + name + ".ptx", {0}},
           {"PTXAS", "sm_90", "", {1}},  // a check that writes nothing
           {"HOST_CC", "", "obj/" + name + ".o", {1}}},
          false,
          "/src/" + name + ".cu"};
}

NinjaLogRecord Ran(const std::string& output, int64_t start, int64_t end) {
  return {start, end, 7, output, 42};
}

}  // namespace

TEST_CASE("a step's key holds its source's path and its output's file name, not the build directory") {
  const RecordedTu here = Tu("a", "/build1/fastcuda/tu/a.o-1234"),
                   there = Tu("a", "/build2/fastcuda/tu/a.o-9876");
  CHECK(StepHistoryKey(here, here.steps[1]) == StepHistoryKey(there, there.steps[1]));
  CHECK(StepHistoryKey(here, here.steps[1]) == "/src/a.cu\ta.ptx");
  CHECK(StepHistoryKey(here, here.steps[0]) != StepHistoryKey(Tu("b", "/w"), Tu("b", "/w").steps[0]));
}

TEST_CASE("the history file's text and back; a damaged or foreign file is no history") {
  const StepHistory history = {{"/src/a.cu\ta.ptx", {2500, 20000}}, {"/src/a.cu\ta.o", {800, 19990}}};
  const StepHistory read = ParseStepHistory(FormatStepHistory(history));
  REQUIRE(read.size() == 2);
  CHECK(read.at("/src/a.cu\ta.ptx").ms == 2500);
  CHECK(read.at("/src/a.cu\ta.o").day == 19990);
  CHECK(ParseStepHistory("").empty());
  CHECK(ParseStepHistory("{\"steps\": {\"k\": [1, 2]}}").empty());  // no version: not ours
  CHECK(ParseStepHistory(FormatStepHistory(history).substr(0, 30)).empty());
}

TEST_CASE("remembered: the latest measured time of each step, not estimates; old entries forgotten") {
  const RecordedTu tu = Tu("a", "/b/tu");
  StepHistory history = {{"/src/gone.cu\tgone.ptx", {100, 100}}, {"/src/kept.cu\tkept.ptx", {100, 150}}};
  RememberStepTimes(history, {tu},
                    {Ran("/b/tu/a.ptx", 10, 1010), Ran("/b/tu/a.ptx", 0, 3000), {0, 900, 0, "obj/a.o", 0}},
                    100 + kForgetAfterDays + 1);
  CHECK(history.at("/src/a.cu\ta.ptx").ms == 3000);  // the latest record wins, even one that started at 0
  CHECK(!history.contains("/src/a.cu\ta.o"));        // an estimate's shape: not measured
  CHECK(!history.contains("/src/gone.cu\tgone.ptx"));
  CHECK(history.contains("/src/kept.cu\tkept.ptx"));
  CHECK(IsMeasured(Ran("x", 0, 5)));
  CHECK(!IsMeasured({0, 5, 0, "x", 0}));
}

TEST_CASE("a TU is remembered when every step that writes a file has a time; records shaped as estimates") {
  const RecordedTu there = Tu("a", "/old/tu"), here = Tu("a", "/new/tu");
  StepHistory history;
  RememberStepTimes(history, {there}, {Ran("/old/tu/a.cpp1.ii", 0, 300), Ran("/old/tu/a.ptx", 300, 2300)}, 5);
  CHECK(!Remembers(history, here));  // the object's time is missing
  CHECK(RememberedRecords(history, here).size() == 2);
  RememberStepTimes(history, {there}, {Ran("obj/a.o", 2300, 3100)}, 5);
  CHECK(Remembers(history, here));
  const std::vector<NinjaLogRecord> records = RememberedRecords(history, here);
  REQUIRE(records.size() == 3);
  CHECK(records[1].output == "/new/tu/a.ptx");
  CHECK(records[1].end_ms - records[1].start_ms == 2000);
  CHECK(!IsMeasured(records[1]));
  RecordedTu unnamed = here;  // a link, or stdin: no source path to key it by
  unnamed.source_path.clear();
  CHECK(!Remembers(history, unnamed));
  CHECK(RememberedRecords(history, unnamed).empty());
}

TEST_CASE("a TU added since the history was written: the mean remembered time of each kind") {
  const RecordedTu a = Tu("a", "/w"), b = Tu("b", "/w"), added = Tu("c", "/w");
  StepHistory history;
  RememberStepTimes(
      history, {a, b},
      {Ran("/w/a.ptx", 0, 1000), Ran("/w/b.ptx", 0, 3000), Ran("obj/a.o", 0, 500), Ran("obj/b.o", 0, 700)},
      5);
  const std::vector<NinjaLogRecord> records = MeanTuRecords(history, {a, b}, {added});
  REQUIRE(records.size() == 3);
  CHECK(records[0].output == "/w/c.cpp1.ii");
  CHECK(records[0].end_ms == DefaultDuration(StepKind::kDevicePreprocess));  // none remembered
  CHECK(records[1].end_ms == 2000);
  CHECK(records[2].end_ms == 600);
  CHECK(!IsMeasured(records[1]));
}

#include <doctest/doctest.h>

#include "src/plan/critical_path.h"
#include "src/plan/step_history.h"
#include "tests/test_support.h"

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

TEST_CASE("a source's times: one file each, named after it; its text and back") {
  CHECK(SourceTimesPath("/h", "/src/a.cu") != SourceTimesPath("/h", "/other/a.cu"));
  CHECK(SourceTimesPath("/h", "/src/a.cu").starts_with("/h/a.cu-"));
  const SourceTimes times{"/src/a.cu", {{"a.ptx", 2500}, {"a.o", 800}}, {{"a.ptx", 900000}}, 20000};
  std::optional<SourceTimes> read = ParseSourceTimes(FormatSourceTimes(times), "/src/a.cu");
  REQUIRE(read);
  CHECK(read->ms == times.ms);
  CHECK(read->peak_kib == times.peak_kib);
  CHECK(read->day == 20000);
  CHECK(!ParseSourceTimes(FormatSourceTimes(times), "/other/a.cu"));  // a hash collision: not ours
  CHECK(!ParseSourceTimes("", "/src/a.cu"));
  CHECK(!ParseSourceTimes("{\"source\": \"/src/a.cu\", \"ms\": {}}", "/src/a.cu"));  // no version
  CHECK(!ParseSourceTimes(FormatSourceTimes(times).substr(0, 30), "/src/a.cu"));
}

TEST_CASE("a source moved (a clone elsewhere): the times of the same file at the path that ends most alike") {
  fastcuda::testing::FakeFileSystem fs;
  auto remember = [&](const std::string& source, int64_t ms, int64_t day) {
    fs.Write(SourceTimesPath("/h", source), FormatSourceTimes({source, {{"a.ptx", ms}}, {}, day}));
  };
  remember("/ci/job1/repo/src/a.cu", 3000, 10);
  remember("/home/me/src/a.cu", 2000, 12);       // ends in src/a.cu only
  remember("/ci/job1/repo/lib/a.cu", 9000, 12);  // another a.cu of the project
  fs.Write("/h/a.cu-0123456789abcdef.json", "damaged");
  auto found = [&](const std::string& source) {
    std::optional<SourceTimes> times = TimesOfMovedSource(source, fs.FilesIn("/h"), fs);
    return times ? times->ms.at("a.ptx") : 0;
  };
  CHECK(found("/ci/job2/repo/src/a.cu") == 3000);  // repo/src/a.cu beats src/a.cu
  CHECK(found("/ci/job2/repo/lib/a.cu") == 9000);
  CHECK(found("/elsewhere/src/a.cu") == 2000);  // src/a.cu in two: the latest written
  CHECK(found("/elsewhere/a.cu") == 0);         // a file name alone is too common
  CHECK(found("/ci/job2/repo/src/b.cu") == 0);
}

TEST_CASE("measured: each output's latest record that ran, but for the steps a cache gave") {
  const std::map<std::string, int64_t> measured =
      MeasuredTimes({Ran("a.ptx", 10, 1010), Ran("a.ptx", 0, 3000), {0, 900, 0, "a.o", 0}, Ran("b.o", 0, 40)},
                    {{"b.o", "hit"}, {"a.ptx", "miss"}});
  CHECK(measured ==
        std::map<std::string, int64_t>{{"a.ptx", 3000}});  // the latest, even one that started at 0
}

TEST_CASE("remembered: each step's time and peak, keyed so that another build directory finds them") {
  const RecordedTu there = Tu("a", "/build1/tu/a.o-1234"), here = Tu("a", "/build2/tu/a.o-9876");
  SourceTimes times{"/src/a.cu"};
  CHECK(RememberStepTimes(times, there, {{"/build1/tu/a.o-1234/a.ptx", 3000}, {"/elsewhere/b.ptx", 5}},
                          {{"/build1/tu/a.o-1234/a.ptx", 700000}, {"/build1/tu/a.o-1234/a.cpp1.ii", 9}}, 20));
  CHECK(times.ms == std::map<std::string, int64_t>{{"a.ptx", 3000}});
  CHECK(times.peak_kib == std::map<std::string, int64_t>{{"a.ptx", 700000}});  // a peak without a run: none
  CHECK(times.day == 20);
  CHECK(!RememberStepTimes(times, there, {{"/build1/tu/a.o-1234/a.ptx", 3000}}, {}, 20));  // nothing changed
  CHECK(RememberStepTimes(times, there, {{"/build1/tu/a.o-1234/a.ptx", 3000}}, {}, 21));   // the day did
  CHECK(!Remembers(times, here));  // its object's and preprocessing's times are missing
  CHECK(RememberedRecords(times, here).size() == 1);
  CHECK(RememberStepTimes(times, there, {{"obj/a.o", 800}, {"/build1/tu/a.o-1234/a.cpp1.ii", 300}}, {}, 21));
  CHECK(Remembers(times, here));
  RecordedTu with_depfile = here;  // a Makefile build's: it writes the depfile its rule asks for
  with_depfile.steps.push_back({"DEPFILE", "", "obj/a.o.d", {3}});
  CHECK(Remembers(times, with_depfile));
  const std::vector<NinjaLogRecord> records = RememberedRecords(times, here);
  REQUIRE(records.size() == 3);
  CHECK(records[1].output == "/build2/tu/a.o-9876/a.ptx");
  CHECK(records[1].end_ms - records[1].start_ms == 3000);
  CHECK(!IsMeasured(records[1]));
  CHECK(IsMeasured(Ran("x", 0, 5)));
  CHECK(RememberedMemoryLines(times, here) == StepMemoryLine("/build2/tu/a.o-9876/a.ptx", 700000, 0));
}

TEST_CASE("a TU added since the history was written: the mean remembered time of each kind") {
  const RecordedTu a = Tu("a", "/w"), b = Tu("b", "/w"), added = Tu("c", "/w");
  const SourceTimes a_times{"/src/a.cu", {{"a.ptx", 1000}, {"a.o", 500}}};
  const SourceTimes b_times{"/src/b.cu", {{"b.ptx", 3000}, {"b.o", 700}}};
  const std::vector<NinjaLogRecord> records = MeanTuRecords({{a, a_times}, {b, b_times}}, {added});
  REQUIRE(records.size() == 3);
  CHECK(records[0].output == "/w/c.cpp1.ii");
  CHECK(records[0].end_ms == DefaultDuration(StepKind::kDevicePreprocess));  // none remembered
  CHECK(records[1].end_ms == 2000);
  CHECK(records[2].end_ms == 600);
  CHECK(!IsMeasured(records[1]));
}

TEST_CASE("once a day, the files no build wrote for kForgetAfterDays are forgotten, by the day they hold") {
  const std::string old_file = SourceTimesPath("/h", "/src/old.cu"),
                    new_file = SourceTimesPath("/h", "/src/new.cu");
  fastcuda::testing::FakeFileSystem fs({{old_file, FormatSourceTimes({"/src/old.cu", {}, {}, 100})},
                                        {new_file, FormatSourceTimes({"/src/new.cu", {}, {}, 141})},
                                        {"/h/notes.json", "{\"day\": 1}"}});
  ForgetOldStepTimes("/h", 100 + kForgetAfterDays + 1, fs);
  CHECK(!fs.IsFile(old_file));
  CHECK(fs.IsFile(new_file));
  CHECK(fs.IsFile("/h/notes.json"));  // not named as FastCuda names its files
  fs.Write(old_file, FormatSourceTimes({"/src/old.cu", {}, {}, 100}));
  ForgetOldStepTimes("/h", 100 + kForgetAfterDays + 1, fs);
  CHECK(fs.IsFile(old_file));  // done for today already
  ForgetOldStepTimes("/h", 100 + kForgetAfterDays + 2, fs);
  CHECK(!fs.IsFile(old_file));
}

#include <doctest/doctest.h>

#include "src/plan/first_phase_plan.h"
#include "tests/test_support.h"

using namespace fastcuda;
using fastcuda::testing::FakeFileSystem;

TEST_CASE("what a log that others append to gained since its mark; all of it once rewritten") {
  const std::string log = "# ninja log v5\n0\t5\t1\ta.o\t1f\n";
  const std::string mark = LogEnd(log);
  CHECK(TextSince(log + "5\t9\t2\tb.o\t2e\n", mark) == "5\t9\t2\tb.o\t2e\n");
  CHECK(TextSince(log, mark).empty());
  const std::string recompacted = "# ninja log v5\n0\t5\t1\tc.o\t1f\n";  // the same length
  CHECK(TextSince(recompacted, mark) == recompacted);
  CHECK(TextSince(log, "") == log);
}

TEST_CASE("FASTCUDA_FIRST_PHASE: off ranks nothing; on weighs two TUs; remembered times weigh none") {
  FakeFileSystem fs({{NoHistoryPath("/g"), ""},
                     {StepsFilePath("/g"), R"({"tus": [{"source": "a.cu", "steps": []},)"
                                           R"({"source": "b.cu", "steps": []}]})"}});
  CHECK(TusToRank("/g", NinjaLogPath("/g"), "off", fs).empty());
  const std::vector<RecordedTu> tus = TusToRank("/g", NinjaLogPath("/g"), "auto", fs);
  CHECK(tus.size() == 2);
  CHECK(PhaseWeighs(tus, 0, 16, "on"));
  CHECK_FALSE(PhaseWeighs(tus, 1, 16, "on"));
  fs.Write(StepsFilePath("/g"), R"({"tus": [)");
  CHECK_THROWS_AS(TusToRank("/g", NinjaLogPath("/g"), "auto", fs), std::runtime_error);
}

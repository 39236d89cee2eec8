#include <doctest/doctest.h>

#include "src/plan/log_handover.h"
#include "tests/test_support.h"

using namespace fastcuda;

namespace {

constexpr const char* kNvccCommand = "nvcc -c a.cu -o a.o";
constexpr const char* kStep = "fastcuda step HOST_CC a.o";

NinjaLogRecord Record(int64_t start, int64_t end, int64_t mtime, std::string output, const char* command) {
  return {start, end, mtime, std::move(output), *NinjaCommandHash(7, command)};
}

std::string Log(const std::vector<NinjaLogRecord>& records) {
  std::string text = "# ninja log v7\n";
  for (const NinjaLogRecord& record : records) text += FormatNinjaLogRecord(record);
  return text;
}

SharedObject AObject() { return HashSharedObject("a.o", kNvccCommand, kStep, {"t/a.ii", "t/a.ptx"}); }

}  // namespace

TEST_CASE("handover: the step's record gets the nvcc command's hash and the earliest mtime of its steps") {
  std::string log = Log({Record(0, 50, 900, "t/a.ii", "cpp"), Record(50, 80, 950, "t/a.ptx", "cicc"),
                         Record(80, 99, 990, "a.o", kStep)});
  std::vector<Handover> handovers = HandOver(log, {AObject()});
  REQUIRE(handovers.size() == 1);
  CHECK(handovers[0].step_record.command_hash == *NinjaCommandHash(7, kStep));
  const NinjaLogRecord& given = handovers[0].generator_record;
  CHECK(given.output == "a.o");
  CHECK(given.command_hash == *NinjaCommandHash(7, kNvccCommand));
  CHECK(given.mtime == 900);  // an input edited while the preprocessor ran is newer
  CHECK(given.start_ms == 80);
  CHECK(given.end_ms == 99);
}

TEST_CASE("handover: nothing for an object another command made last, or a log version unknown") {
  std::string by_nvcc = Log({Record(0, 99, 990, "a.o", kNvccCommand)});
  CHECK(HandOver(by_nvcc, {AObject()}).empty());
  CHECK(HandOver(Log({Record(0, 99, 990, "b.o", kStep)}), {AObject()}).empty());
  std::string v9 = "# ninja log v9\n" + FormatNinjaLogRecord(Record(0, 99, 990, "a.o", kStep));
  CHECK(HandOver(v9, {AObject()}).empty());
  SharedObject not_by_default = AObject();  // a build of the defaults leaves it as it was
  not_by_default.by_default = false;
  CHECK(HandOver(Log({Record(0, 99, 990, "a.o", kStep)}), {not_by_default}).empty());
}

TEST_CASE("take back: only records still as they were handed over") {
  std::string log = Log({Record(80, 99, 990, "a.o", kStep)});
  std::vector<Handover> handovers = HandOver(log, {AObject()});
  REQUIRE(handovers.size() == 1);
  std::string handed = log + FormatNinjaLogRecord(handovers[0].generator_record);
  std::vector<NinjaLogRecord> taken = TakeBack(handed, handovers);
  REQUIRE(taken.size() == 1);
  CHECK(taken[0].command_hash == *NinjaCommandHash(7, kStep));
  // Plain ninja rebuilt the object since: its record stays, the steps rerun.
  std::string rebuilt = handed + FormatNinjaLogRecord(Record(0, 120, 2000, "a.o", kNvccCommand));
  CHECK(TakeBack(rebuilt, handovers).empty());
}

TEST_CASE("handover through files: remembered, appended, taken back once") {
  testing::FakeFileSystem fs;
  SaveSharedObjects({AObject()}, "/b/.fastcuda", fs);
  REQUIRE(LoadSharedObjects("/b/.fastcuda", fs).size() == 1);
  const std::string log_path = "/b/.ninja_log";
  fs.Write(log_path, Log({Record(80, 99, 990, "a.o", kStep)}));
  HandOverLog("/b/.fastcuda", log_path, /*whole_build=*/false, fs);  // one target, failed or stopped
  CHECK(*fs.Read(log_path) == Log({Record(80, 99, 990, "a.o", kStep)}));
  HandOverLog("/b/.fastcuda", log_path, /*whole_build=*/true, fs);
  auto latest_hash = [&] { return ParseNinjaLogRecords(*fs.Read(log_path)).back().command_hash; };
  CHECK(latest_hash() == *NinjaCommandHash(7, kNvccCommand));
  TakeBackLog("/b/.fastcuda", log_path, fs);
  CHECK(latest_hash() == *NinjaCommandHash(7, kStep));
  const std::string once = *fs.Read(log_path);
  TakeBackLog("/b/.fastcuda", log_path, fs);  // nothing left to take back
  CHECK(*fs.Read(log_path) == once);
}

TEST_CASE("made elsewhere: an object whose latest record is neither its step's nor the one handed over") {
  std::string built = Log({Record(80, 99, 990, "a.o", kStep)});
  CHECK(MadeElsewhere(built, {AObject()}, {}).empty());  // the steps made it (no handover: killed)
  std::vector<Handover> handovers = HandOver(built, {AObject()});
  std::string handed = built + FormatNinjaLogRecord(handovers.at(0).generator_record);
  CHECK(MadeElsewhere(handed, {AObject()}, handovers).empty());
  // Plain ninja rebuilt it since, with the same command or an earlier one.
  std::string rebuilt = handed + FormatNinjaLogRecord(Record(0, 120, 2000, "a.o", kNvccCommand));
  CHECK(MadeElsewhere(rebuilt, {AObject()}, handovers) == std::vector<std::string>{"a.o"});
  std::string earlier = handed + FormatNinjaLogRecord(Record(0, 120, 2000, "a.o", "nvcc -O1 -c a.cu -o a.o"));
  CHECK(MadeElsewhere(earlier, {AObject()}, handovers) == std::vector<std::string>{"a.o"});
  // Only plain ninja ever made it.
  CHECK(MadeElsewhere(Log({Record(0, 99, 990, "a.o", kNvccCommand)}), {AObject()}, {}) ==
        std::vector<std::string>{"a.o"});
  CHECK(
      MadeElsewhere(Log({Record(0, 99, 990, "b.o", kNvccCommand)}), {AObject()}, {}).empty());  // never built
}

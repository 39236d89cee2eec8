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

SharedObject AObject() {
  SharedObject object = HashSharedObject("a.o", kNvccCommand, kStep);
  object.source = "a.cu";
  return object;
}

bool All(const SharedObject&) { return true; }

}  // namespace

TEST_CASE("handover: the step's record gets the nvcc command's hash and the build's start as its mtime") {
  std::string log = Log({Record(0, 50, 900, "t/a.ii", "cpp"), Record(50, 80, 950, "t/a.ptx", "cicc"),
                         Record(80, 99, 990, "a.o", kStep)});
  std::vector<Handover> handovers = HandOver(log, {AObject()}, All, 1000);
  REQUIRE(handovers.size() == 1);
  CHECK(handovers[0].step_record.command_hash == *NinjaCommandHash(7, kStep));
  const NinjaLogRecord& given = handovers[0].generator_record;
  CHECK(given.output == "a.o");
  CHECK(given.command_hash == *NinjaCommandHash(7, kNvccCommand));
  CHECK(given.mtime == 1000);  // an input edited since the build began, even while the steps ran, is newer
  CHECK(given.start_ms == 80);
  CHECK(given.end_ms == 99);
}

TEST_CASE(
    "handover: nothing for an object another command made last, not current, or of a log version unknown") {
  std::string by_nvcc = Log({Record(0, 99, 990, "a.o", kNvccCommand)});
  CHECK(HandOver(by_nvcc, {AObject()}, All, 1000).empty());
  CHECK(HandOver(Log({Record(0, 99, 990, "b.o", kStep)}), {AObject()}, All, 1000).empty());
  std::string v9 = "# ninja log v9\n" + FormatNinjaLogRecord(Record(0, 99, 990, "a.o", kStep));
  CHECK(HandOver(v9, {AObject()}, All, 1000).empty());
  auto none = [](const SharedObject&) { return false; };  // the build did not make it
  CHECK(HandOver(Log({Record(0, 99, 990, "a.o", kStep)}), {AObject()}, none, 1000).empty());
}

TEST_CASE("take back: only records still as they were handed over") {
  std::string log = Log({Record(80, 99, 990, "a.o", kStep)});
  std::vector<Handover> handovers = HandOver(log, {AObject()}, All, 1000);
  REQUIRE(handovers.size() == 1);
  std::string handed = log + FormatNinjaLogRecord(handovers[0].generator_record);
  std::vector<Handover> taken = TakeBack(handed, handovers);
  REQUIRE(taken.size() == 1);
  CHECK(taken[0].step_record.command_hash == *NinjaCommandHash(7, kStep));
  // Plain ninja rebuilt the object since: its record stays, the steps rerun.
  std::string rebuilt = handed + FormatNinjaLogRecord(Record(0, 120, 2000, "a.o", kNvccCommand));
  CHECK(TakeBack(rebuilt, handovers).empty());
}

TEST_CASE("handover through files: remembered, appended, taken back once") {
  testing::FakeFileSystem fs;
  SaveSharedObjects({AObject()}, "/b/.fastcuda", fs);
  REQUIRE(LoadSharedObjects("/b/.fastcuda", fs).size() == 1);
  CHECK(LoadSharedObjects("/b/.fastcuda", fs)[0].source == "a.cu");
  const std::string log_path = "/b/.ninja_log";
  fs.Write(log_path, Log({Record(80, 99, 990, "a.o", kStep)}));
  auto by_default = [](const SharedObject& object) { return object.by_default; };
  SharedObject other = AObject();  // not a default: a build of the defaults leaves it as it was
  other.by_default = false;
  SaveSharedObjects({other}, "/b/.fastcuda", fs);
  HandOverLog("/b/.fastcuda", log_path, by_default, 1000, {}, fs);
  CHECK(*fs.Read(log_path) == Log({Record(80, 99, 990, "a.o", kStep)}));
  SaveSharedObjects({AObject()}, "/b/.fastcuda", fs);
  HandOverLog("/b/.fastcuda", log_path, by_default, 1000, {}, fs);
  auto latest_hash = [&] { return ParseNinjaLogRecords(*fs.Read(log_path)).back().command_hash; };
  CHECK(latest_hash() == *NinjaCommandHash(7, kNvccCommand));
  std::vector<Handover> taken_back = TakeBackLog("/b/.fastcuda", log_path, {}, fs).handovers;
  REQUIRE(taken_back.size() == 1);
  CHECK(taken_back[0].generator_record.command_hash == *NinjaCommandHash(7, kNvccCommand));
  CHECK(latest_hash() == *NinjaCommandHash(7, kStep));
  const std::string once = *fs.Read(log_path);
  CHECK(TakeBackLog("/b/.fastcuda", log_path, {}, fs).handovers.empty());  // nothing left to take back
  CHECK(*fs.Read(log_path) == once);
}

TEST_CASE("made elsewhere: an object whose latest record is neither its step's nor the one handed over") {
  std::string built = Log({Record(80, 99, 990, "a.o", kStep)});
  CHECK(MadeElsewhere(built, {AObject()}, {}).empty());  // the steps made it (no handover: killed)
  std::vector<Handover> handovers = HandOver(built, {AObject()}, All, 1000);
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

TEST_CASE("handover after a build of other targets: an object it did not make gets back the record it had") {
  testing::FakeFileSystem fs;
  const std::string log_path = "/b/.ninja_log";
  fs.Write(log_path, Log({Record(80, 99, 990, "a.o", kStep)}));
  SaveSharedObjects({AObject()}, "/b/.fastcuda", fs);
  auto all = [](const SharedObject&) { return true; };
  auto none = [](const SharedObject&) { return false; };
  HandOverLog("/b/.fastcuda", log_path, all, 1000, {}, fs);
  const std::string handed = *fs.Read(log_path);
  std::vector<Handover> taken_back = TakeBackLog("/b/.fastcuda", log_path, {}, fs).handovers;
  // The generator's command changed since (a flag that changes cicc's
  // command, not the host compile's): the object's step record alone cannot
  // tell, so it gets the old command's hash back, which plain ninja rebuilds.
  SaveSharedObjects({HashSharedObject("a.o", "nvcc -G -c a.cu -o a.o", kStep)}, "/b/.fastcuda", fs);
  HandOverLog("/b/.fastcuda", log_path, none, 2000, taken_back, fs);
  NinjaLogRecord latest = ParseNinjaLogRecords(*fs.Read(log_path)).back();
  CHECK(FormatNinjaLogRecord(latest) == FormatNinjaLogRecord(ParseNinjaLogRecords(handed).back()));
  CHECK(latest.command_hash == *NinjaCommandHash(7, kNvccCommand));
  // Taken back again and made by its step since: not handed over.
  taken_back = TakeBackLog("/b/.fastcuda", log_path, {}, fs).handovers;
  REQUIRE(taken_back.size() == 1);
  fs.Append(log_path, FormatNinjaLogRecord(Record(100, 120, 1100, "a.o", kStep)));
  CHECK(Untouched(*fs.Read(log_path), taken_back).empty());
  const std::string made = *fs.Read(log_path);
  HandOverLog("/b/.fastcuda", log_path, none, 2000, taken_back, fs);
  CHECK(*fs.Read(log_path) == made);
}

TEST_CASE("the build's start: the mtime of a file written then, as Ninja stamps it") {
  testing::FakeFileSystem fs;
  const int64_t first = BuildStart("/b/.fastcuda", fs);
  CHECK(first == NinjaTimeStamp(*fs.MTime("/b/.fastcuda/build-start")));
  CHECK(BuildStart("/b/.fastcuda", fs) > first);
}

TEST_CASE("a build that ran no step puts the log and the handovers back as they were") {
  testing::FakeFileSystem fs;
  const std::string log_path = "/b/.ninja_log";
  const std::vector<SharedObject> objects = {AObject()};
  SaveSharedObjects(objects, "/b/.fastcuda", fs);
  fs.Write(log_path,
           Log({Record(0, 50, 900, "/b/.fastcuda/tu/a.ii", "cpp"), Record(80, 99, 990, "a.o", kStep)}));
  HandOverLog("/b/.fastcuda", log_path, All, 1000, {}, fs);
  const std::string handed = *fs.Read(log_path);
  const std::string handovers = *fs.Read("/b/.fastcuda/log-handovers.json");
  // Ninja ran an edge of the generator's own (CMake's check of its globs): the log keeps its record.
  TakenBack taken = TakeBackLog("/b/.fastcuda", log_path, objects, fs);
  REQUIRE(taken.handovers.size() == 1);
  const std::string globs =
      FormatNinjaLogRecord(Record(100, 110, 0, "CMakeFiles/cmake.verify_globs", "cmake"));
  fs.Append(log_path, globs);
  CHECK(PutBackLog("/b/.fastcuda", "/b", log_path, objects, taken, fs));
  CHECK(*fs.Read(log_path) == handed + globs);
  CHECK(*fs.Read("/b/.fastcuda/log-handovers.json") == handovers);
  // Again with nothing appended: the log is as it was, record for record.
  taken = TakeBackLog("/b/.fastcuda", log_path, objects, fs);
  CHECK(PutBackLog("/b/.fastcuda", "/b", log_path, objects, taken, fs));
  CHECK(*fs.Read(log_path) == handed + globs);

  // A step ran (an intermediate under the graph directory, named relative to
  // where Ninja runs, or the object): HandOverLog's to do.
  for (const std::string& output : {std::string(".fastcuda/tu/a.ii"), std::string("a.o")}) {
    taken = TakeBackLog("/b/.fastcuda", log_path, objects, fs);
    const std::string before = *fs.Read(log_path);
    fs.Append(log_path, FormatNinjaLogRecord(Record(200, 210, 1100, output, "cpp")));
    CHECK_FALSE(PutBackLog("/b/.fastcuda", "/b", log_path, objects, taken, fs));
    fs.Write(log_path, before);  // as if it had not run
    CHECK(PutBackLog("/b/.fastcuda", "/b", log_path, objects, taken, fs));
  }
  // Ninja rewrote (recompacted) the log: all of it is new.
  taken = TakeBackLog("/b/.fastcuda", log_path, objects, fs);
  fs.Write(log_path, Log({Record(80, 99, 990, "a.o", kStep)}));
  CHECK_FALSE(PutBackLog("/b/.fastcuda", "/b", log_path, objects, taken, fs));
}

TEST_CASE("no putting back where an object that was not handed over has its step's record") {
  testing::FakeFileSystem fs;
  const std::string log_path = "/b/.ninja_log";
  SharedObject b = HashSharedObject("b.o", "nvcc -c b.cu -o b.o", "fastcuda step HOST_CC b.o");
  fs.Write(log_path, Log({Record(80, 99, 990, "a.o", kStep)}));
  SaveSharedObjects({AObject(), b}, "/b/.fastcuda", fs);
  HandOverLog("/b/.fastcuda", log_path, All, 1000, {}, fs);
  // b.o's steps ran in a build that handed nothing over (it failed elsewhere).
  fs.Append(log_path,
            FormatNinjaLogRecord({100, 120, 1100, "b.o", *NinjaCommandHash(7, "fastcuda step HOST_CC b.o")}));
  TakenBack taken = TakeBackLog("/b/.fastcuda", log_path, {AObject(), b}, fs);
  CHECK(taken.other_step_objects);
  CHECK_FALSE(PutBackLog("/b/.fastcuda", "/b", log_path, {AObject(), b}, taken, fs));
  // Nothing to put back where nothing was taken back.
  CHECK_FALSE(PutBackLog("/b/.fastcuda", "/b", log_path, {AObject()}, TakenBack{}, fs));
}

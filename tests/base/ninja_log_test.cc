#include <doctest/doctest.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "src/base/ninja_log.h"

using namespace fastcuda;

namespace {

/// The log that real Ninja wrote for `command`: its hash of it.
struct RecordedHash {
  const char* command;
  uint64_t v5;  ///< Ninja 1.11.1
  uint64_t v7;  ///< Ninja 1.13.2
};

}  // namespace

TEST_CASE("command hashes are those Ninja 1.11 and 1.13 wrote in their logs, at every length class") {
  // Recorded from `.ninja_log` after building edges with these commands.
  const RecordedHash recorded[] = {
      {":", 0x2e49d2477c6737f0, 0xa2da22321247804b},                                     // 1 byte
      {"touch a", 0x9544b174230a39b3, 0xd91ff1f2760e13e4},                               // 4 to 16
      {"echo 0123456789abcdefghijklmnopq > a", 0xc0c12dcb2cd36be5, 0x5029ad28def6d801},  // 17 to 48
      {"echo 0123456789abcdefghijklmnopqrstuvwxyz0123456789abcdefghijklmnop > b", 0x820b9bf05845551a,
       0x5c01044b2695b6cc},  // 49 to 96
      {"touch bb # the quick brown fox jumps over the lazy dog, again and again: "
       "0123456789abcdefghijklmnopqrstuvwxyz 0123456789abcdefghijklmnopqrstuvwxyz "
       "0123456789abcdefghijklmnopqrstuvwxyz",
       0x22b757b51eb02ac7, 0x9955eeb8f7193953},  // over 96
  };
  for (const RecordedHash& hash : recorded) {
    CAPTURE(hash.command);
    CHECK(NinjaCommandHash(5, hash.command) == hash.v5);
    CHECK(NinjaCommandHash(6, hash.command) == hash.v5);  // 1.12 changed the format, not the hash
    CHECK(NinjaCommandHash(7, hash.command) == hash.v7);
  }
  CHECK_FALSE(NinjaCommandHash(4, "touch a"));
  CHECK_FALSE(NinjaCommandHash(8, "touch a"));
}

TEST_CASE(
    "ninja log records: read with mtime and hash, written back the same, the version from the signature") {
  const std::string text =
      "# ninja log v7\n"
      "1\t3\t1796155011606803698\tccc\ta2da22321247804b\n"
      "not a record\n"
      "0\t3\t1796155011599200302\tdir/a b.o\td91ff1f2760e13e4\n";
  std::vector<NinjaLogRecord> records = ParseNinjaLogRecords(text);
  REQUIRE(records.size() == 2);
  CHECK(records[1].start_ms == 0);
  CHECK(records[1].end_ms == 3);
  CHECK(records[1].mtime == 1796155011599200302);
  CHECK(records[1].output == "dir/a b.o");
  CHECK(records[1].command_hash == 0xd91ff1f2760e13e4);
  CHECK(FormatNinjaLogRecord(records[0]) + FormatNinjaLogRecord(records[1]) ==
        "1\t3\t1796155011606803698\tccc\ta2da22321247804b\n"
        "0\t3\t1796155011599200302\tdir/a b.o\td91ff1f2760e13e4\n");
  CHECK(NinjaLogVersion(text) == 7);
  CHECK(NinjaLogVersion("# ninja log v5\n") == 5);
  CHECK(NinjaLogVersion("1\t3\t5\tccc\ta2\n") == 0);
  CHECK(NinjaLogVersion("") == 0);
}

TEST_CASE("ninja log records: CRLF, a last line without newline, and torn lines") {
  const std::string text =
      "1\t3\t-5\ta.o\tff\r\n"
      "1\t3\t5\n"           // torn by a crash mid-write
      "1\tx\t5\tb.o\tff\n"  // not a number
      "1\t3\t5\t\tff\n"     // no output
      "1\t3\t5\tc.o\tzz\n"  // not a hash
      "2\t4\t6\td.o\t1a";
  std::vector<NinjaLogRecord> records = ParseNinjaLogRecords(text);
  REQUIRE(records.size() == 2);
  CHECK(records[0].mtime == -5);
  CHECK(records[0].output == "a.o");
  CHECK(records[0].command_hash == 0xff);
  CHECK(records[1].output == "d.o");
  CHECK(records[1].command_hash == 0x1a);
  CHECK(LatestRecordsOf(text + "\n9\t9\t9\ta.o\t2\n").at("a.o").start_ms == 9);
}

TEST_CASE("the log header of each Ninja version, read back") {
  CHECK(NinjaLogVersion(NinjaLogHeader(11)) == 5);
  CHECK(NinjaLogVersion(NinjaLogHeader(12)) == 6);
  CHECK(NinjaLogVersion(NinjaLogHeader(13)) == 7);
  CHECK(NinjaLogVersion(NinjaLogHeader(14)) == 7);
}

TEST_CASE("a file's time as Ninja stamps it: st_mtim in nanoseconds since the Unix epoch") {
  const std::filesystem::path file =
      std::filesystem::temp_directory_path() / ("fastcuda-ninja-log-test-" + std::to_string(getpid()));
  std::ofstream(file) << "x";
  struct timespec times[2] = {{0, UTIME_OMIT}, {1700000000, 123456789}};
  REQUIRE(utimensat(AT_FDCWD, file.c_str(), times, 0) == 0);
  CHECK(NinjaTimeStamp(std::filesystem::last_write_time(file)) == 1700000000123456789);
  std::filesystem::remove(file);
}

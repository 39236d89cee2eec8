#include "src/base/proc_files.h"

#include <doctest/doctest.h>

using namespace fastcuda;

TEST_CASE("a /proc stat line gives the name and the parent, whatever the name holds") {
  std::optional<ProcessInfo> ninja = ParseProcessStat("4242 (ninja) S 4100 4242 4100 0 -1 4194304 ...");
  REQUIRE(ninja);
  CHECK(ninja->pid == 4242);
  CHECK(ninja->parent == 4100);
  CHECK(ninja->name == "ninja");
  CHECK(ninja->start_ticks == 0);  // the line stops before field 22
  // A real line: field 22, starttime, tells this process from a later one with its pid.
  std::optional<ProcessInfo> started = ParseProcessStat(
      "4242 (ninja) S 4100 4242 4100 34816 4242 4194560 3109 0 0 0 12 3 0 0 20 0 1 0 987654 22462464 ...");
  REQUIRE(started);
  CHECK(started->start_ticks == 987654);
  std::optional<ProcessInfo> odd = ParseProcessStat("7 (a) b (c) R 1 7 7 0");
  REQUIRE(odd);
  CHECK(odd->name == "a) b (c");
  CHECK(odd->parent == 1);
  CHECK_FALSE(ParseProcessStat(""));
  CHECK_FALSE(ParseProcessStat("12 ninja S 1"));
}

TEST_CASE("a process's start, from its /proc stat; none where there is none") {
  CHECK(ProcessStart("4242 (fast cuda) step) S 1 4242 4242 0 -1 4194560 100 0 0 0 1 2 0 0 20 0 1 0 987654 "
                     "1000 50 18446744073709551615\n") == 987654);
  CHECK(ProcessStart(std::nullopt) == -1);
  CHECK(ProcessStart("4242 (cut") == -1);
  CHECK(ProcessStart("4242 (ninja) S 4100 4242") == -1);  // no field 22
}

TEST_CASE("what a process holds, from its /proc statm; its children's ids") {
  CHECK(ResidentKib("52000 12345 800 10 0 30000 0\n", 4) == 12345 * 4);
  CHECK(ResidentKib(std::nullopt, 4) == 0);
  CHECK(ResidentKib("", 4) == 0);
  CHECK(ChildPids("4243 4250 \n") == std::vector<int64_t>{4243, 4250});
  CHECK(ChildPids(std::nullopt).empty());
}

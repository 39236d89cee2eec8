#include "src/base/ninja_run.h"

#include <doctest/doctest.h>

#include "tests/test_support.h"

using namespace fastcuda;

namespace {

/// A /proc/PID/stat line: PID (NAME) S PARENT, then fields up to the start time (22nd).
std::string Stat(const std::string& pid, const std::string& name, const std::string& parent,
                 const std::string& started) {
  return pid + " (" + name + ") S " + parent + " 1 1 0 -1 4194560 100 0 0 0 1 1 0 0 20 0 1 0 " + started +
         " 1000 200 18446744073709551615\n";
}

}  // namespace

TEST_CASE("a step's Ninja run: the nearest ninja above it, through its shell, by PID and start") {
  testing::FakeFileSystem fs{{"/proc/self/stat", Stat("300", "fastcuda", "200", "9003")},
                             {"/proc/200/stat", Stat("200", "sh", "100", "9002")},
                             {"/proc/100/stat", Stat("100", "ninja", "1", "9001")},
                             {"/proc/1/stat", Stat("1", "systemd", "0", "1")}};
  CHECK(NinjaRunOf(fs) == "100.9001");
  // Started by Ninja itself (no shell), or with a name of spaces and parentheses
  fs.Write("/proc/self/stat", Stat("300", "fast (cuda) x", "100", "9003"));
  CHECK(NinjaRunOf(fs) == "100.9001");
  // No ninja above it (run by hand), or no /proc
  fs.Write("/proc/100/stat", Stat("100", "bash", "1", "9001"));
  CHECK(NinjaRunOf(fs).empty());
  CHECK(NinjaRunOf(testing::FakeFileSystem{}).empty());
}

#include <doctest/doctest.h>

#include "src/base/ninja_jobs.h"

using namespace fastcuda;

TEST_CASE("an explicit job count wins") {
  CHECK(NinjaJobArguments({6, " -j16 --jobserver-auth=fifo:/tmp/x", 13, 16}) ==
        std::vector<std::string>{"-j", "6"});
}

TEST_CASE("Ninja 1.13 joins make's FIFO jobserver: no -j") {
  CHECK(NinjaJobArguments({0, " -j16 --jobserver-auth=fifo:/tmp/GMfifo1", 13, 16}).empty());
}

TEST_CASE("an older Ninja or a pipe jobserver: make's own -jN, not the core count") {
  CHECK(NinjaJobArguments({0, " -j4 --jobserver-auth=fifo:/tmp/GMfifo1", 11, 16}) ==
        std::vector<std::string>{"-j", "4"});
  CHECK(NinjaJobArguments({0, "-j3 --jobserver-auth=3,4", 13, 16}) == std::vector<std::string>{"-j", "3"});
}

TEST_CASE("outside make: one job per core") {
  CHECK(NinjaJobArguments({0, "", 11, 16}) == std::vector<std::string>{"-j", "16"});
  CHECK(NinjaJobArguments({0, "--no-print-directory", 13, 2}) == std::vector<std::string>{"-j", "2"});
}

TEST_CASE("inside a Ninja: that Ninja's -j (cmake --build -j 1), at most the cores; -j and make still win") {
  CHECK(NinjaJobArguments({0, "", 11, 16, 1}) == std::vector<std::string>{"-j", "1"});
  CHECK(NinjaJobArguments({0, "", 11, 16, 64}) == std::vector<std::string>{"-j", "16"});
  CHECK(NinjaJobArguments({8, "", 11, 16, 1}) == std::vector<std::string>{"-j", "8"});
  CHECK(NinjaJobArguments({0, "-j3 --jobserver-auth=3,4", 11, 16, 1}) == std::vector<std::string>{"-j", "3"});
}

TEST_CASE(
    "a Ninja without -j: Ninja's default counted from the CPUs a quota leaves, where fewer than the cores") {
  CHECK(DefaultNinjaJobArguments(4, 64, "") == std::vector<std::string>{"-j", "6"});
  CHECK(DefaultNinjaJobArguments(2, 64, "") == std::vector<std::string>{"-j", "3"});
  CHECK(DefaultNinjaJobArguments(1, 64, "") == std::vector<std::string>{"-j", "2"});
  CHECK(DefaultNinjaJobArguments(64, 64, "").empty());                         // Ninja counts as much itself
  CHECK(DefaultNinjaJobArguments(4, 64, "-j8 --jobserver-auth=3,4").empty());  // make decides
}

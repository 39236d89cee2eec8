#include "src/base/ninja_status.h"

#include <doctest/doctest.h>

#include <string>

using namespace fastcuda;

TEST_CASE("a followed Ninja's status line: its counts and the edge that ended") {
  std::string line = std::string(kFollowedNinjaStatus) + "CICC sm_80 /src/a b.cu";
  line = line.replace(line.find("%f"), 2, "37")
             .replace(line.find("%t"), 2, "412")
             .replace(line.find("%r"), 2, "8");
  std::optional<NinjaStatusLine> status = ParseNinjaStatusLine(line);
  REQUIRE(status);
  CHECK(status->finished == 37);
  CHECK(status->total == 412);
  CHECK(status->running == 8);
  CHECK(status->description == "CICC sm_80 /src/a b.cu");
}

TEST_CASE("a followed Ninja's other lines are no status") {
  CHECK_FALSE(ParseNinjaStatusLine("FAILED: a.o"));
  CHECK_FALSE(ParseNinjaStatusLine("ninja: no work to do."));
  CHECK_FALSE(ParseNinjaStatusLine("[3/9] CICC sm_80 a.cu"));  // Ninja's own format
  CHECK_FALSE(ParseNinjaStatusLine("fastcuda-status 3 9: CICC"));
}

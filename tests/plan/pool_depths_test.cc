#include <doctest/doctest.h>

#include "src/plan/pool_depths.h"

using namespace fastcuda;

TEST_CASE("pool depths: parsed from text, kinds in any case; bad text throws") {
  PoolDepths pools = ParsePoolDepths("cicc=4,PTXAS=8");
  CHECK(pools == PoolDepths{{StepKind::kCicc, 4}, {StepKind::kPtxas, 8}});
  CHECK(ParsePoolDepths("").empty());
  CHECK_THROWS(ParsePoolDepths("nonsense=1"));
  CHECK_THROWS(ParsePoolDepths("cicc"));
  CHECK_THROWS(ParsePoolDepths("cicc=0"));
}

#include <doctest/doctest.h>

#include "src/base/make_flags.h"

using namespace fastcuda;

TEST_CASE("MakeKeepsGoing reads -k from the one-letter flags of MAKEFLAGS, as GNU make writes them") {
  CHECK(MakeKeepsGoing("k"));
  CHECK(MakeKeepsGoing("ks -j2 --jobserver-auth=3,4"));  // make -k -s -j2
  CHECK(MakeKeepsGoing("ik -I/tmp"));
  CHECK(MakeKeepsGoing("-k"));  // an older make's
  CHECK_FALSE(MakeKeepsGoing(""));
  CHECK_FALSE(MakeKeepsGoing(" -j2 --jobserver-auth=3,4"));  // no one-letter flags
  CHECK_FALSE(MakeKeepsGoing(" -- FOO=k"));                  // a variable's value
  CHECK_FALSE(MakeKeepsGoing("s -- K=k"));
  CHECK_FALSE(MakeKeepsGoing("-j2"));
}

TEST_CASE("MakeRunsRecipesAtOnce: -j above 1 or without a limit, as GNU make writes them") {
  CHECK(MakeRunsRecipesAtOnce("s -j2 --jobserver-auth=3,4"));
  CHECK(MakeRunsRecipesAtOnce("ks -j3 --jobserver-auth=fifo:/tmp/GMfifo1 --no-print-directory"));
  CHECK(MakeRunsRecipesAtOnce(" -j"));
  CHECK_FALSE(MakeRunsRecipesAtOnce("s -j1"));
  CHECK_FALSE(MakeRunsRecipesAtOnce("s"));
  CHECK_FALSE(MakeRunsRecipesAtOnce(""));
  CHECK_FALSE(MakeRunsRecipesAtOnce(" --jobs-of-a-kind=-jx"));
}

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
  for (const char* at_once : {"s -j2 --jobserver-auth=3,4", " -j",
                              "ks -j3 --jobserver-auth=fifo:/tmp/GMfifo1 --no-print-directory"}) {
    CHECK(MakeRunsRecipesAtOnce(at_once));
  }
  for (const char* one_by_one : {"s -j1", "s", "", " --jobs-of-a-kind=-jx"}) {
    CHECK_FALSE(MakeRunsRecipesAtOnce(one_by_one));
  }
}

#include <doctest/doctest.h>

#include "src/base/dryrun_runner.h"

using namespace fastcuda;

TEST_CASE("a dryrun directory names the process that made it; no other name does") {
  CHECK(DryrunDirOwner("fastcuda-dryrun-4242-0") == 4242);
  CHECK(DryrunDirOwner("fastcuda-dryrun-7-15") == 7);
  for (const char* other :
       {"fastcuda-dryrun-", "fastcuda-dryrun-4242", "fastcuda-dryrun-4242-", "fastcuda-dryrun-4242-x",
        "fastcuda-dryrun-0-1", "fastcuda-dryrun--1-0", "fastcuda-dryrun-99999999999999999999-0",
        "tmpxft_00001234_00000000-1_a.cpp1.ii", "fastcuda-process-test-4242"}) {
    INFO(other);
    CHECK_FALSE(DryrunDirOwner(other));
  }
}

#include <doctest/doctest.h>

#include "src/plan/pool_depths.h"

using namespace fastcuda;

TEST_CASE("pool depths: parsed from text, kinds in any case, a pool each; bad text throws") {
  PoolDepths pools = ParsePoolDepths("cicc=4,PTXAS=8");
  CHECK(pools ==
        PoolDepths{{StepKind::kCicc, {"fastcuda_cicc", 4}}, {StepKind::kPtxas, {"fastcuda_ptxas", 8}}});
  CHECK(ParsePoolDepths("").empty());
  CHECK_THROWS(ParsePoolDepths("nonsense=1"));
  CHECK_THROWS(ParsePoolDepths("cicc"));
  CHECK_THROWS(ParsePoolDepths("cicc=0"));
}

TEST_CASE("remote jobs: the CPUs here and four remote steps per local job, unless set") {
  CHECK(RemoteJobsOf({}, 4) == RemoteJobs{4, 16});
  CHECK(RemoteJobsOf({}, 0) == RemoteJobs{1, 4});
  CHECK(RemoteJobsOf({{"FASTCUDA_LOCAL_JOBS", "2"}}, 16) == RemoteJobs{2, 8});
  CHECK(RemoteJobsOf({{"FASTCUDA_REMOTE_JOBS", "100"}, {"FASTCUDA_LOCAL_JOBS", "0"}}, 4) ==
        RemoteJobs{4, 100});
  CHECK_THROWS_AS(RemoteJobsOf({{"FASTCUDA_REMOTE_JOBS", "many"}}, 4), std::invalid_argument);
}

TEST_CASE("remote pools: local kinds share the local jobs, remote kinds the remote ones, own pools stay") {
  CHECK(WithRemotePools(ParsePoolDepths("cicc=3"), {}, {4, 16}) == ParsePoolDepths("cicc=3"));
  PoolDepths pools =
      WithRemotePools(ParsePoolDepths("host_cc=2"), {StepKind::kCicc, StepKind::kPtxas}, RemoteJobs{4, 16});
  CHECK(pools.at(StepKind::kCicc) == StepPool{"fastcuda_remote", 16});
  CHECK(pools.at(StepKind::kPtxas) == StepPool{"fastcuda_remote", 16});
  CHECK(pools.at(StepKind::kCudafe) == StepPool{"fastcuda_local", 4});
  CHECK(pools.at(StepKind::kFatbinary) == StepPool{"fastcuda_local", 4});
  CHECK(pools.at(StepKind::kHostCompile) == StepPool{"fastcuda_host_cc", 2});
  CHECK(pools.size() == std::size(kAllKinds));
}

#include "src/base/parallel_for.h"

#include <doctest/doctest.h>

#include <atomic>
#include <stdexcept>
#include <vector>

using namespace fastcuda;

TEST_CASE("ParallelFor calls the body once for every index, on any number of threads") {
  for (unsigned threads : {0u, 1u, 3u, 64u}) {
    std::vector<std::atomic<int>> calls(100);
    ParallelFor(calls.size(), threads, [&](size_t i) { ++calls[i]; });
    for (const std::atomic<int>& count : calls) CHECK(count == 1);
  }
  ParallelFor(0, 4, [](size_t) { FAIL("no index to call"); });
}

TEST_CASE("ParallelFor rethrows a body's exception once every thread has stopped") {
  std::atomic<int> running{0};
  auto body = [&](size_t i) {
    ++running;
    if (i == 7) {
      --running;
      throw std::runtime_error("seven");
    }
    --running;
  };
  CHECK_THROWS_WITH_AS(ParallelFor(1000, 4, body), "seven", std::runtime_error);
  CHECK(running == 0);
}

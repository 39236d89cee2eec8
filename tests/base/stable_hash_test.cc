#include <doctest/doctest.h>

#include <set>

#include "src/base/stable_hash.h"

using namespace fastcuda;

TEST_CASE("stable hash: FNV-1a's values, which name directories of existing build trees") {
  CHECK(StableHashHex("") == "cbf29ce4");
  CHECK(StableHashHex("a", 16) == "af63dc4c8601ec8c");
}

TEST_CASE("content hash: every one-byte change, and every length of the same bytes, hashes apart") {
  const std::string body = "# 1 \"k.cu\"\n__global__ void k(float *x) { x[threadIdx.x] *= 2.f; }\n";
  std::set<std::string> seen{ContentHashHex(body)};
  for (size_t at = 0; at < body.size(); ++at) {
    std::string changed = body;
    changed[at] ^= 1;
    CHECK(seen.insert(ContentHashHex(changed)).second);
  }
  for (size_t length = 0; length < 20; ++length)
    CHECK(seen.insert(ContentHashHex(std::string(length, '\0'))).second);
  CHECK(ContentHashHex(body).size() == 16);
  CHECK(ContentHashHex(body) == ContentHashHex(std::string(body)));
}

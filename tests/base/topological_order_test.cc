#include <doctest/doctest.h>

#include "src/base/topological_order.h"

using namespace fastcuda;

namespace {

std::vector<size_t> OrderOf(const std::vector<std::vector<size_t>>& after) {
  return TopologicalOrder(after.size(),
                          [&](size_t node) -> const std::vector<size_t>& { return after[node]; });
}

}  // namespace

TEST_CASE("a topological order keeps an order that is one already") {
  CHECK(OrderOf({{}, {0}, {0, 1}, {}}) == std::vector<size_t>{0, 1, 2, 3});
}

TEST_CASE("a node that waits for a later one comes after it") {
  // As a host compile that waits for the depfile step appended after it.
  CHECK(OrderOf({{}, {0, 3}, {1}, {0}}) == std::vector<size_t>{0, 3, 1, 2});
}

TEST_CASE("nodes on a cycle come last; a name out of range is no wait") {
  CHECK(OrderOf({{2}, {}, {0}, {9}}) == std::vector<size_t>{1, 3, 0, 2});
}

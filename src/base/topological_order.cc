#include "src/base/topological_order.h"

#include <functional>
#include <queue>

namespace fastcuda {

std::vector<size_t> TopologicalOrder(size_t count,
                                     const std::function<const std::vector<size_t>&(size_t)>& after_of) {
  std::vector<size_t> waiting_for(count, 0);
  std::vector<std::vector<size_t>> followers(count);
  for (size_t node = 0; node < count; ++node) {
    for (size_t before : after_of(node)) {
      if (before >= count) continue;
      ++waiting_for[node];
      followers[before].push_back(node);
    }
  }
  std::priority_queue<size_t, std::vector<size_t>, std::greater<>> ready;
  for (size_t node = 0; node < count; ++node) {
    if (waiting_for[node] == 0) ready.push(node);
  }
  std::vector<size_t> order;
  while (!ready.empty()) {
    size_t node = ready.top();
    ready.pop();
    order.push_back(node);
    for (size_t follower : followers[node]) {
      if (--waiting_for[follower] == 0) ready.push(follower);
    }
  }
  for (size_t node = 0; node < count; ++node) {
    if (waiting_for[node] > 0) order.push_back(node);  // on a cycle: never ready
  }
  return order;
}

}  // namespace fastcuda

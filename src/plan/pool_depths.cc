#include "src/plan/pool_depths.h"

#include <algorithm>
#include <iterator>
#include <stdexcept>

#include "src/base/text.h"

namespace fastcuda {

PoolDepths ParsePoolDepths(const std::string& text) {
  PoolDepths pools;
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find(',', start);
    if (end == std::string::npos) end = text.size();
    std::string item = text.substr(start, end - start);
    start = end + 1;
    if (item.empty()) continue;
    size_t eq = item.find('=');
    if (eq == std::string::npos) throw std::invalid_argument("pool depth needs KIND=N: " + item);
    std::string name = Lower(item.substr(0, eq));
    auto kind = std::find_if(std::begin(kAllKinds), std::end(kAllKinds),
                             [&](StepKind k) { return Lower(StepKindName(k)) == name; });
    if (kind == std::end(kAllKinds)) throw std::invalid_argument("unknown step kind: " + name);
    int depth = std::stoi(item.substr(eq + 1));
    if (depth < 1) throw std::invalid_argument("pool depth must be at least 1: " + item);
    pools[*kind] = depth;
  }
  return pools;
}

}  // namespace fastcuda

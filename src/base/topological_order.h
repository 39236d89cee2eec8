// An order of the nodes of a graph given as "waits for" lists.
#pragma once

#include <cstddef>
#include <functional>
#include <vector>

namespace fastcuda {

/// The nodes 0..count-1, each after every node `after_of` names for it; of
/// the nodes ready at once the lowest first, so that nodes already in such
/// an order keep it. Nodes on a cycle, which have no such place, come last.
std::vector<size_t> TopologicalOrder(size_t count,
                                     const std::function<const std::vector<size_t>&(size_t)>& after_of);

}  // namespace fastcuda

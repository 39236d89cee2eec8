// Running independent pieces of planning on several cores.
#pragma once

#include <cstddef>
#include <functional>

namespace fastcuda {

/// Calls `body(i)` for every i in [0, count) on up to `threads` threads
/// (at least one) and returns when all calls have. Each call must touch only
/// its own i's state. The first exception a call throws is rethrown here,
/// after every thread has stopped; the calls not yet started then are not made.
void ParallelFor(size_t count, unsigned threads, const std::function<void(size_t)>& body);

}  // namespace fastcuda

#include "src/base/parallel_for.h"

#include <algorithm>
#include <atomic>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

namespace fastcuda {

void ParallelFor(size_t count, unsigned threads, const std::function<void(size_t)>& body) {
  std::atomic<size_t> next{0};
  std::exception_ptr failure;
  std::mutex failure_mutex;
  auto worker = [&] {
    for (size_t i = next++; i < count; i = next++) {
      try {
        body(i);
      } catch (...) {
        std::lock_guard<std::mutex> lock(failure_mutex);
        if (!failure) failure = std::current_exception();
        next = count;
      }
    }
  };
  size_t workers = std::min<size_t>(std::max(1u, threads), count);
  if (workers <= 1) {
    worker();
  } else {
    std::vector<std::thread> pool;
    for (size_t t = 0; t < workers; ++t) pool.emplace_back(worker);
    for (std::thread& thread : pool) thread.join();
  }
  if (failure) std::rethrow_exception(failure);
}

}  // namespace fastcuda

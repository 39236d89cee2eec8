#include "src/base/machine.h"

#include <re2/re2.h>

#include "src/base/file_system.h"

namespace fastcuda {

std::optional<int64_t> AvailableMemoryKib() {
  std::string meminfo = RealFileSystem().Read("/proc/meminfo").value_or("");
  int64_t available = 0;
  if (RE2::PartialMatch(meminfo, R"re(MemAvailable:\s+(\d+) kB)re", &available)) return available;
  return std::nullopt;
}

}  // namespace fastcuda

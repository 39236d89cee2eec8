// Facts of the machine FastCuda runs on.
#pragma once

#include <cstdint>
#include <optional>

namespace fastcuda {

/// The memory available for new work (`MemAvailable` of /proc/meminfo), in
/// KiB, or nullopt where the kernel does not say.
std::optional<int64_t> AvailableMemoryKib();

}  // namespace fastcuda

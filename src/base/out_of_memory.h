// Telling a program that ran out of memory from one that failed: ended by
// the kernel's out-of-memory killer, or saying so itself.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "src/base/file_system.h"
#include "src/base/process.h"

namespace fastcuda {

/// The kernel's counts of the processes its out-of-memory killer ended, by
/// the file that holds each (an `oom_kill N` line): the machine's
/// (`/proc/vmstat`, every kill) and those of the process's own memory
/// cgroups (v2's `memory.events`, v1's `memory.oom_control`, which may count
/// where a container shows no machine-wide count). Empty where none can be read.
using OomKillCounts = std::map<std::string, int64_t>;

/// The files that hold OomKillCounts, from the texts of `/proc/self/cgroup`
/// and `/proc/self/mountinfo`.
std::vector<std::string> OomKillFiles(std::string_view own_cgroups, std::string_view mountinfo);

/// The counts that `files` hold, by path; a file without one is left out.
OomKillCounts OomKillCountsIn(const std::map<std::string, std::string>& files);

/// Reads the counts of OomKillFiles through `fs`: the machine's alone
/// where it has one.
OomKillCounts ReadOomKillCounts(const FileSystem& fs);

/// Why a run of a program ran out of memory, in words, or nullopt where it
/// succeeded or failed otherwise. `output`: what it printed; `before` and
/// `after`: the counts around its run. Killed by SIGKILL (or a compiler
/// driver or nvcc saying that its child was) while a count grew: the
/// out-of-memory killer's; where no count can be read at all, a SIGKILL is
/// taken for its (nothing else in a build sends one). Otherwise an
/// allocator's or a compiler's message that memory ran out ("out of
/// memory", "std::bad_alloc", "virtual memory exhausted", "Cannot allocate
/// memory").
std::optional<std::string> OutOfMemoryReason(const ProcessResult& result, std::string_view output,
                                             const OomKillCounts& before, const OomKillCounts& after);

}  // namespace fastcuda

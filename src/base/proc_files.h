// What the texts of /proc say of one process: its stat line (name, parent,
// start), its children's ids, its resident memory. Parsing only: the reads
// go through a FileSystem where they are made.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace fastcuda {

/// One process, as /proc shows it.
struct ProcessInfo {
  int pid = 0;
  int parent = 0;
  std::string name;               ///< the command name (/proc/PID/comm)
  std::vector<std::string> argv;  ///< its command line
  uint64_t start_ticks = 0;       ///< when it started (clock ticks after boot): with the pid, one process
};

/// The name, parent pid and start time of a /proc/PID/stat line ("12
/// (ninja) S 7 ..."; the name may hold spaces and parentheses).
std::optional<ProcessInfo> ParseProcessStat(std::string_view stat);

/// When a process started, in clock ticks since boot, from the text of its
/// `/proc/PID/stat` (ParseProcessStat's start_ticks); -1 for none.
int64_t ProcessStart(const std::optional<std::string>& stat);

/// The resident memory (KiB) of a process from the text of its
/// `/proc/PID/statm` (its second field, in pages of `page_kib`); 0 for none.
int64_t ResidentKib(const std::optional<std::string>& statm, int64_t page_kib);

/// The process ids in the text of a `/proc/PID/task/TID/children`.
std::vector<int64_t> ChildPids(const std::optional<std::string>& children);

}  // namespace fastcuda

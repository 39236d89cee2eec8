// Facts of the machine FastCuda runs on: how much memory and how many CPUs
// its tightest limit leaves this process.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>

#include "src/base/file_system.h"

namespace fastcuda {

/// What the limits are read from, as read: a text is empty where its file
/// is absent.
struct LimitFiles {
  std::string meminfo;      ///< /proc/meminfo
  std::string own_cgroups;  ///< /proc/self/cgroup
  std::string mountinfo;    ///< /proc/self/mountinfo
  /// The limit files of the cgroups (LimitingCgroupDirs, LimitFilesOf) that
  /// could be read, by path.
  std::map<std::string, std::string> cgroup_files;
  unsigned cores = 1;     ///< the CPUs online
  unsigned affinity = 0;  ///< the CPUs the process may run on (sched_getaffinity); 0: unknown
};

/// The memory and CPUs left to the process, each from the tightest limit
/// that applies, and which limit that was, as a user reads it.
struct MachineLimits {
  std::optional<int64_t> memory_kib;  ///< nullopt where nothing says
  std::string memory_source;          ///< e.g. "MemAvailable in /proc/meminfo"
  unsigned cpus = 1;
  std::string cpu_source;  ///< e.g. "the quota in /sys/fs/cgroup/cpu.max"
  /// True where the memory limit is a cgroup's: the memory of the build's
  /// own container or slice, which the rest of the machine does not share.
  bool memory_from_cgroup = false;
};

/// The tightest of the limits in `files`: for memory, `MemAvailable` and
/// each cgroup's limit less its usage (the page cache it may drop, its
/// inactive files, not counted: the kernel reclaims that before it kills);
/// for CPUs, the cores, the affinity and each cgroup's quota (rounded up: a
/// quota of 1.5 CPUs runs two jobs, as the JVM and .NET count it).
MachineLimits LimitsOf(const LimitFiles& files);

/// Reads the files of LimitFiles through `fs`.
LimitFiles ReadLimitFiles(const FileSystem& fs, unsigned cores, unsigned affinity);

/// LimitsOf this process on this machine, its files read through `fs`.
MachineLimits MachineLimitsHere(const FileSystem& fs);

}  // namespace fastcuda

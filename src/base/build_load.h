// How many jobs the build running a step runs now, for steps that choose
// their threads (FASTCUDA_SPLIT_COMPILE=auto).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "src/base/file_system.h"
#include "src/base/proc_files.h"

namespace fastcuda {

/// What a step of a Ninja build sees when it starts.
struct BuildLoad {
  int slots = 1;      ///< the jobs the build may run at once: -j, make's -j, at most the cores
  int running = 1;    ///< the jobs it runs now, this step's included
  int splitting = 1;  ///< those of them that choose their threads (kSplitAutoFlag)
};

/// The `fastcuda step` flag of a step that chooses its threads.
inline constexpr std::string_view kSplitAutoFlag = "--split-auto";

/// True for a process that is a Ninja ("ninja", "ninja-build", ...).
bool IsNinja(const ProcessInfo& process);

/// True for a process that is a make.
bool IsMake(const ProcessInfo& process);

/// The load of the build `self` is a job of. Every Ninja among its
/// ancestors counts: a launcher's own Ninja runs inside a job of the outer
/// build, so the jobs are the children of all of them, less the jobs that
/// are those inner Ninjas' ancestors. A job splits if its command line
/// holds kSplitAutoFlag (Ninja runs `/bin/sh -c COMMAND`). The slots are
/// the smallest -j, make's -j in `makeflags`, and `cores`. Without a
/// Ninja every slot counts as busy: nothing says which cores idle.
BuildLoad BuildLoadOf(const std::vector<ProcessInfo>& processes, int self, int cores,
                      std::string_view makeflags);

/// The smallest -j of the Ninjas among `self`'s ancestors in `processes`:
/// the job limit of the build this process runs inside (`cmake --build
/// -j 4`); nullopt where no Ninja above it sets one.
std::optional<int> EnclosingNinjaJobs(const std::vector<ProcessInfo>& processes, int self);

/// The Ninja whose job `self` is: the nearest Ninja among its ancestors,
/// unless a make is nearer (a Makefile build inside a Ninja job is make's).
std::optional<ProcessInfo> EnclosingNinja(const std::vector<ProcessInfo>& processes, int self);

/// EnclosingNinja of this process, from /proc (read through `fs`), and the directory that Ninja
/// runs in (after its -C).
struct EnclosingNinjaProcess {
  ProcessInfo process;
  std::string cwd;
};
std::optional<EnclosingNinjaProcess> EnclosingNinjaHere(const FileSystem& fs);

/// EnclosingNinjaJobs of this process, from /proc (read through `fs`).
std::optional<int> EnclosingNinjaJobsHere(const FileSystem& fs);

/// BuildLoadOf for this process: /proc (read through `fs`), the CPUs its
/// limits leave (MachineLimits: the affinity, a cgroup's CPU quota) and
/// MAKEFLAGS of `environment`.
BuildLoad CurrentBuildLoad(const FileSystem& fs, const std::map<std::string, std::string>& environment);

}  // namespace fastcuda

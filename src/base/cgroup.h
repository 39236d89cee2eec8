// The cgroups whose limits bound this process: where their files are, for
// cgroup v2 and v1's memory and cpu controllers.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace fastcuda {

/// A cgroup directory whose limits apply to the process.
struct CgroupDir {
  std::string path;        ///< e.g. /sys/fs/cgroup/memory/docker/abc
  std::string controller;  ///< v1's "memory" or "cpu"; empty for v2, which holds both
};

/// The directories of the process's own cgroups and of each parent up to
/// where the hierarchy is mounted (a parent's limit bounds its children
/// too), innermost first, for the v2 hierarchy and v1's memory and cpu
/// controllers, from the texts of `/proc/self/cgroup` and
/// `/proc/self/mountinfo`. None where neither names a cgroup.
std::vector<CgroupDir> LimitingCgroupDirs(std::string_view own_cgroups, std::string_view mountinfo);

/// The files of `dir` that hold its limits and usage.
std::vector<std::string> LimitFilesOf(const CgroupDir& dir);

}  // namespace fastcuda

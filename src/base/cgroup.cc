#include "src/base/cgroup.h"

#include <re2/re2.h>

#include <algorithm>

namespace fastcuda {
namespace {

/// A line of /proc/self/cgroup: the controllers of one hierarchy ("" for
/// v2) and the process's cgroup in it.
struct Membership {
  std::string controllers;
  std::string path;
};

/// A mounted cgroup hierarchy: which cgroup its root is, and where it is.
struct CgroupMount {
  std::string root;
  std::string mount_point;
  bool v2 = false;
  std::string options;  ///< v1: the controllers among the super options
};

/// mountinfo escapes space, tab, newline and backslash as octal (`\040`).
std::string UnescapedMountField(const std::string& field) {
  std::string text;
  for (size_t i = 0; i < field.size(); ++i) {
    const bool octal = field[i] == '\\' && i + 3 < field.size() &&
                       std::all_of(field.begin() + i + 1, field.begin() + i + 4,
                                   [](char c) { return c >= '0' && c <= '7'; });
    if (octal) {
      text += char((field[i + 1] - '0') * 64 + (field[i + 2] - '0') * 8 + (field[i + 3] - '0'));
      i += 3;
    } else {
      text += field[i];
    }
  }
  return text;
}

/// Whether the comma-separated `list` holds `item`.
bool Lists(std::string_view list, std::string_view item) {
  size_t start = 0;
  while (start <= list.size()) {
    size_t end = std::min(list.find(',', start), list.size());
    if (list.substr(start, end - start) == item) return true;
    start = end + 1;
  }
  return false;
}

/// The lines of /proc/self/cgroup ("ID:CONTROLLERS:PATH").
std::vector<Membership> ParseMemberships(std::string_view own_cgroups) {
  static const RE2 line(R"re((?m)^\d+:([^:\n]*):([^\n]*)$)re");
  std::vector<Membership> memberships;
  re2::StringPiece input(own_cgroups.data(), own_cgroups.size());
  Membership membership;
  while (RE2::FindAndConsume(&input, line, &membership.controllers, &membership.path)) {
    memberships.push_back(membership);
  }
  return memberships;
}

/// The cgroup file systems among the lines of /proc/self/mountinfo.
std::vector<CgroupMount> ParseCgroupMounts(std::string_view mountinfo) {
  // ID PARENT MAJOR:MINOR ROOT MOUNT-POINT OPTIONS [OPTIONAL...] - TYPE SOURCE SUPER-OPTIONS
  static const RE2 line(R"re((?m)^\S+ \S+ \S+ (\S+) (\S+) [^\n]*? - (cgroup2?) \S+ (\S*)$)re");
  std::vector<CgroupMount> mounts;
  re2::StringPiece input(mountinfo.data(), mountinfo.size());
  std::string root, mount_point, type, options;
  while (RE2::FindAndConsume(&input, line, &root, &mount_point, &type, &options)) {
    mounts.push_back(
        {UnescapedMountField(root), UnescapedMountField(mount_point), type == "cgroup2", options});
  }
  return mounts;
}

/// The directories of the cgroup at `path` of the hierarchy mounted at
/// `mount` and of its parents up to the mount's root; none where the cgroup
/// lies outside what the mount shows.
std::vector<CgroupDir> DirsUpFrom(const std::string& path, const CgroupMount& mount,
                                  const std::string& controller) {
  std::string relative = path;
  if (mount.root != "/") {
    if (path != mount.root && path.rfind(mount.root + "/", 0) != 0) return {};
    relative = path.substr(mount.root.size());
  }
  if (relative.find("/..") != std::string::npos) return {};
  std::vector<CgroupDir> dirs;
  while (!relative.empty() && relative != "/") {
    dirs.push_back({mount.mount_point + relative, controller});
    relative.erase(relative.rfind('/'));
  }
  dirs.push_back({mount.mount_point, controller});
  return dirs;
}

}  // namespace

std::vector<CgroupDir> LimitingCgroupDirs(std::string_view own_cgroups, std::string_view mountinfo) {
  std::vector<CgroupMount> mounts = ParseCgroupMounts(mountinfo);
  std::vector<CgroupDir> dirs;
  for (const Membership& membership : ParseMemberships(own_cgroups)) {
    for (const std::string controller : {"", "memory", "cpu"}) {
      if (controller.empty() != membership.controllers.empty()) continue;
      if (!controller.empty() && !Lists(membership.controllers, controller)) continue;
      auto mount = std::find_if(mounts.begin(), mounts.end(), [&](const CgroupMount& candidate) {
        return controller.empty() ? candidate.v2 : !candidate.v2 && Lists(candidate.options, controller);
      });
      if (mount == mounts.end()) continue;
      std::vector<CgroupDir> up = DirsUpFrom(membership.path, *mount, controller);
      dirs.insert(dirs.end(), up.begin(), up.end());
    }
  }
  return dirs;
}

std::vector<std::string> LimitFilesOf(const CgroupDir& dir) {
  if (dir.controller.empty()) return {"memory.max", "memory.current", "memory.stat", "cpu.max"};
  if (dir.controller == "memory") return {"memory.limit_in_bytes", "memory.usage_in_bytes", "memory.stat"};
  return {"cpu.cfs_quota_us", "cpu.cfs_period_us"};
}

}  // namespace fastcuda

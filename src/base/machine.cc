#include "src/base/machine.h"

#include <re2/re2.h>
#include <sched.h>

#include <algorithm>
#include <functional>
#include <thread>

#include "src/base/cgroup.h"

namespace fastcuda {
namespace {

/// The first number `pattern` captures in `text`, if it matches.
std::optional<int64_t> Captured(const std::optional<std::string>& text, const RE2& pattern) {
  int64_t number = 0;
  if (!text || !RE2::PartialMatch(*text, pattern, &number)) return std::nullopt;
  return number;
}

/// Takes `kib` from `source` where it is tighter than what `limits` has.
void TightenMemory(MachineLimits& limits, int64_t kib, const std::string& source, bool from_cgroup) {
  if (limits.memory_kib && *limits.memory_kib <= kib) return;
  limits.memory_kib = kib;
  limits.memory_source = source;
  limits.memory_from_cgroup = from_cgroup;
}

/// Takes `cpus` from `source` where they are fewer than what `limits` has.
void TightenCpus(MachineLimits& limits, unsigned cpus, const std::string& source) {
  if (limits.cpus <= cpus) return;
  limits.cpus = cpus;
  limits.cpu_source = source;
}

/// The limits of one cgroup directory, whose files `read` gives.
void TightenByCgroup(MachineLimits& limits, const CgroupDir& dir,
                     const std::function<std::optional<std::string>(const std::string&)>& read) {
  static const RE2 number(R"re(^\s*(-?\d+)\s*$)re");
  static const RE2 v2_cpu(R"re(^\s*(\d+)\s+(\d+)\s*$)re");
  static const RE2 v1_inactive(R"re((?m)^total_inactive_file (\d+)$)re");
  static const RE2 v2_inactive(R"re((?m)^inactive_file (\d+)$)re");
  const bool v2 = dir.controller.empty();
  if (v2 || dir.controller == "memory") {
    const std::string limit_file = v2 ? "memory.max" : "memory.limit_in_bytes";
    std::optional<int64_t> limit = Captured(read(limit_file), number);  // v2's "max" is none
    // v1 writes none as the most pages it counts, 2^63 bytes less a page.
    if (limit && *limit < (int64_t{1} << 62)) {
      int64_t usage = Captured(read(v2 ? "memory.current" : "memory.usage_in_bytes"), number).value_or(0);
      usage -= Captured(read("memory.stat"), v2 ? v2_inactive : v1_inactive).value_or(0);
      TightenMemory(limits, std::max<int64_t>(0, *limit - std::max<int64_t>(0, usage)) / 1024,
                    dir.path + "/" + limit_file + " less the cgroup's usage", /*from_cgroup=*/true);
    }
  }
  if (v2 || dir.controller == "cpu") {
    int64_t quota = 0, period = 0;
    if (v2) {
      std::optional<std::string> text = read("cpu.max");  // "max 100000": none
      if (!text || !RE2::FullMatch(*text, v2_cpu, &quota, &period)) return;
    } else {
      quota = Captured(read("cpu.cfs_quota_us"), number).value_or(-1);  // -1: none
      period = Captured(read("cpu.cfs_period_us"), number).value_or(0);
    }
    if (quota <= 0 || period <= 0) return;
    TightenCpus(limits, static_cast<unsigned>(std::max<int64_t>(1, (quota + period - 1) / period)),
                "the quota in " + dir.path + (v2 ? "/cpu.max" : "/cpu.cfs_quota_us"));
  }
}

}  // namespace

MachineLimits LimitsOf(const LimitFiles& files) {
  MachineLimits limits;
  static const RE2 available(R"re(MemAvailable:\s+(\d+) kB)re");
  if (std::optional<int64_t> kib = Captured(files.meminfo, available)) {
    TightenMemory(limits, *kib, "MemAvailable in /proc/meminfo", /*from_cgroup=*/false);
  }
  limits.cpus = std::max(1u, files.cores);
  limits.cpu_source = "the machine's cores";
  if (files.affinity > 0)
    TightenCpus(limits, files.affinity, "the CPUs the process may run on (its affinity)");
  for (const CgroupDir& dir : LimitingCgroupDirs(files.own_cgroups, files.mountinfo)) {
    TightenByCgroup(limits, dir, [&](const std::string& name) -> std::optional<std::string> {
      auto file = files.cgroup_files.find(dir.path + "/" + name);
      if (file == files.cgroup_files.end()) return std::nullopt;
      return file->second;
    });
  }
  return limits;
}

LimitFiles ReadLimitFiles(const FileSystem& fs, unsigned cores, unsigned affinity) {
  LimitFiles files;
  files.meminfo = fs.Read("/proc/meminfo").value_or("");
  files.own_cgroups = fs.Read("/proc/self/cgroup").value_or("");
  files.mountinfo = fs.Read("/proc/self/mountinfo").value_or("");
  for (const CgroupDir& dir : LimitingCgroupDirs(files.own_cgroups, files.mountinfo)) {
    for (const std::string& name : LimitFilesOf(dir)) {
      const std::string path = dir.path + "/" + name;
      if (std::optional<std::string> text = fs.Read(path)) files.cgroup_files[path] = *text;
    }
  }
  files.cores = cores;
  files.affinity = affinity;
  return files;
}

MachineLimits MachineLimitsHere(const FileSystem& fs) {
  cpu_set_t allowed;
  CPU_ZERO(&allowed);
  // A machine of more CPUs than cpu_set_t holds fails this: unknown then.
  const int affinity = sched_getaffinity(0, sizeof allowed, &allowed) == 0 ? CPU_COUNT(&allowed) : 0;
  return LimitsOf(ReadLimitFiles(fs, std::thread::hardware_concurrency(), static_cast<unsigned>(affinity)));
}

}  // namespace fastcuda

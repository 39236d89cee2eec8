#include <doctest/doctest.h>

#include <algorithm>
#include <thread>

#include "src/base/cgroup.h"
#include "src/base/machine.h"
#include "tests/test_support.h"

using namespace fastcuda;
using fastcuda::testing::FakeFileSystem;

namespace {

// Recorded on a machine of cgroup v1 (hybrid: an empty v2 hierarchy beside
// v1's controllers), the process in a memory cgroup two levels down.
constexpr const char* kV1Cgroups =
    "9:name=systemd:/\n8:pids:/\n7:blkio:/\n6:freezer:/\n5:devices:/\n"
    "4:memory:/process_api/c067f89411505b2c9173b71fcae6885a\n3:cpuset:/\n2:cpuacct:/\n1:cpu:/\n0::/\n";
constexpr const char* kV1Mountinfo =
    "22 27 0:21 / /proc rw,relatime - proc proc rw\n"
    "31 23 0:28 / /sys/fs/cgroup rw,relatime - tmpfs tmpfs rw,mode=755\n"
    "32 31 0:29 / /sys/fs/cgroup/cpu rw,relatime - cgroup cgroup rw,cpu\n"
    "33 31 0:30 / /sys/fs/cgroup/cpuacct rw,relatime - cgroup cgroup rw,cpuacct\n"
    "34 31 0:31 / /sys/fs/cgroup/cpuset rw,relatime - cgroup cgroup rw,cpuset\n"
    "35 31 0:32 / /sys/fs/cgroup/memory rw,relatime - cgroup cgroup rw,memory\n"
    "36 31 0:33 / /sys/fs/cgroup/devices rw,relatime - cgroup cgroup rw,devices\n"
    "40 31 0:37 / /sys/fs/cgroup/systemd rw,relatime - cgroup cgroup rw,name=systemd\n"
    "41 31 0:38 / /sys/fs/cgroup/unified rw,relatime - cgroup2 cgroup2 rw\n";
constexpr const char* kMeminfo =
    "MemTotal:       24683664 kB\nMemFree:        21065488 kB\n"
    "MemAvailable:   20681592 kB\n";
constexpr const char* kV1Own = "/sys/fs/cgroup/memory/process_api/c067f89411505b2c9173b71fcae6885a";
constexpr const char* kV1Parent = "/sys/fs/cgroup/memory/process_api";
constexpr const char* kV1Unlimited = "9223372036854771712\n";

/// The files recorded there: no memory limit at any level, no CPU quota.
LimitFiles RecordedV1() {
  LimitFiles files{kMeminfo, kV1Cgroups, kV1Mountinfo, {}, 2, 2};
  for (const std::string& dir :
       {std::string(kV1Own), std::string(kV1Parent), std::string("/sys/fs/cgroup/memory")}) {
    files.cgroup_files[dir + "/memory.limit_in_bytes"] = kV1Unlimited;
  }
  files.cgroup_files[std::string(kV1Own) + "/memory.usage_in_bytes"] = "832901120\n";
  files.cgroup_files[std::string(kV1Own) + "/memory.stat"] =
      "cache 35348480\nrss 2113536\ninactive_file 21831680\nactive_file 13516800\n"
      "total_cache 35348480\ntotal_inactive_file 21831680\n";
  files.cgroup_files[std::string(kV1Parent) + "/memory.usage_in_bytes"] = "5100134400\n";
  files.cgroup_files[std::string(kV1Parent) + "/memory.stat"] =
      "inactive_file 0\ntotal_inactive_file 1059860480\n";
  files.cgroup_files["/sys/fs/cgroup/cpu/cpu.cfs_quota_us"] = "-1\n";
  files.cgroup_files["/sys/fs/cgroup/cpu/cpu.cfs_period_us"] = "100000\n";
  return files;
}

// cgroup v2 as the kernel documents it: a systemd session whose user slice
// has the limits ("max" means none).
constexpr const char* kV2Cgroups = "0::/user.slice/user-1000.slice/session-2.scope\n";
constexpr const char* kV2Mountinfo =
    "22 27 0:21 / /proc rw,nosuid,nodev,noexec,relatime shared:12 - proc proc rw\n"
    "30 23 0:26 / /sys/fs/cgroup rw,nosuid,nodev,noexec,relatime shared:4 - cgroup2 cgroup2 "
    "rw,nsdelegate,memory_recursiveprot\n";
constexpr const char* kSession = "/sys/fs/cgroup/user.slice/user-1000.slice/session-2.scope";
constexpr const char* kUserSlice = "/sys/fs/cgroup/user.slice/user-1000.slice";

LimitFiles NestedV2() {
  LimitFiles files{kMeminfo, kV2Cgroups, kV2Mountinfo, {}, 16, 16};
  files.cgroup_files[std::string(kSession) + "/memory.max"] = "max\n";
  files.cgroup_files[std::string(kSession) + "/memory.current"] = "1073741824\n";
  files.cgroup_files[std::string(kSession) + "/cpu.max"] = "max 100000\n";
  files.cgroup_files[std::string(kUserSlice) + "/memory.max"] = "8589934592\n";
  files.cgroup_files[std::string(kUserSlice) + "/memory.current"] = "2147483648\n";
  files.cgroup_files[std::string(kUserSlice) + "/memory.stat"] =
      "anon 1073741824\nfile 1073741824\n"
      "active_file 0\ninactive_file 1073741824\n";
  files.cgroup_files[std::string(kUserSlice) + "/cpu.max"] = "150000 100000\n";
  files.cgroup_files["/sys/fs/cgroup/user.slice/memory.max"] = "max\n";
  return files;
}

}  // namespace

TEST_CASE("cgroups: v1's memory and cpu hierarchies and the v2 one, each walked up to its mount") {
  std::vector<CgroupDir> dirs = LimitingCgroupDirs(kV1Cgroups, kV1Mountinfo);
  std::vector<std::string> paths;
  for (const CgroupDir& dir : dirs) paths.push_back(dir.controller + " " + dir.path);
  CHECK(paths == std::vector<std::string>{"memory " + std::string(kV1Own), "memory " + std::string(kV1Parent),
                                          "memory /sys/fs/cgroup/memory", "cpu /sys/fs/cgroup/cpu",
                                          " /sys/fs/cgroup/unified"});
  CHECK(LimitFilesOf(dirs[0]) ==
        std::vector<std::string>{"memory.limit_in_bytes", "memory.usage_in_bytes", "memory.stat"});
  CHECK(LimitFilesOf(dirs[4]) ==
        std::vector<std::string>{"memory.max", "memory.current", "memory.stat", "cpu.max"});
}

TEST_CASE("cgroups: a mount of part of the hierarchy starts there; a cgroup outside it has none") {
  const std::string mountinfo =
      "50 40 0:32 /docker/abc /sys/fs/cgroup/memory ro,nosuid - cgroup cgroup rw,memory\n"
      "51 40 0:29 /docker/abc /sys/fs/cgroup/cpu,cpuacct ro,nosuid - cgroup cgroup rw,cpu,cpuacct\n";
  std::vector<CgroupDir> dirs =
      LimitingCgroupDirs("5:memory:/docker/abc/inner\n4:cpu,cpuacct:/docker/abc\n", mountinfo);
  REQUIRE(dirs.size() == 3);
  CHECK(dirs[0].path == "/sys/fs/cgroup/memory/inner");
  CHECK(dirs[1].path == "/sys/fs/cgroup/memory");
  CHECK(dirs[2].path == "/sys/fs/cgroup/cpu,cpuacct");
  CHECK(dirs[2].controller == "cpu");
  CHECK(LimitingCgroupDirs("5:memory:/elsewhere\n", mountinfo).empty());
}

TEST_CASE("cgroups: mountinfo's escaped mount points") {
  std::vector<CgroupDir> dirs =
      LimitingCgroupDirs("0::/\n", "30 23 0:26 / /mnt/cg\\040two rw shared:4 - cgroup2 cgroup2 rw\n");
  REQUIRE(dirs.size() == 1);
  CHECK(dirs[0].path == "/mnt/cg two");
}

TEST_CASE("limits: no cgroup limit on the recorded v1 machine: MemAvailable and the cores") {
  MachineLimits limits = LimitsOf(RecordedV1());
  CHECK(limits.memory_kib == 20681592);
  CHECK(limits.memory_source == "MemAvailable in /proc/meminfo");
  CHECK_FALSE(limits.memory_from_cgroup);
  CHECK(limits.cpus == 2);
  CHECK(limits.cpu_source == "the machine's cores");
  LimitFiles without_meminfo = RecordedV1();
  without_meminfo.meminfo = "";
  CHECK_FALSE(LimitsOf(without_meminfo).memory_kib);  // v1's "no limit" is none, not 8 EiB
}

TEST_CASE("limits: v1's limit of a parent cgroup, less its usage but its inactive files") {
  LimitFiles files = RecordedV1();
  files.cgroup_files[std::string(kV1Parent) + "/memory.limit_in_bytes"] = "6442450944\n";  // 6 GiB
  files.cgroup_files["/sys/fs/cgroup/cpu/cpu.cfs_quota_us"] = "50000\n";
  MachineLimits limits = LimitsOf(files);
  CHECK(limits.memory_kib == (6442450944 - (5100134400 - 1059860480)) / 1024);
  CHECK(limits.memory_source == std::string(kV1Parent) + "/memory.limit_in_bytes less the cgroup's usage");
  CHECK(limits.cpus == 1);
  CHECK(limits.cpu_source == "the quota in /sys/fs/cgroup/cpu/cpu.cfs_quota_us");
}

TEST_CASE("limits: nested v2: the parent slice's memory.max and cpu.max bound the session") {
  MachineLimits limits = LimitsOf(NestedV2());
  CHECK(limits.memory_kib == 7 * 1024 * 1024);  // 8 GiB less 2 GiB used, 1 GiB of it inactive files
  CHECK(limits.memory_source == std::string(kUserSlice) + "/memory.max less the cgroup's usage");
  CHECK(limits.memory_from_cgroup);
  CHECK(limits.cpus == 2);  // 1.5 CPUs, rounded up
  CHECK(limits.cpu_source == "the quota in " + std::string(kUserSlice) + "/cpu.max");
}

TEST_CASE("limits: a container's own v2 cgroup (a cgroup namespace: \"0::/\"), used to its limit") {
  LimitFiles files{kMeminfo, "0::/\n", "30 23 0:26 / /sys/fs/cgroup ro - cgroup2 cgroup2 rw\n", {}, 64, 64};
  files.cgroup_files["/sys/fs/cgroup/memory.max"] = "1073741824\n";
  files.cgroup_files["/sys/fs/cgroup/memory.current"] = "1073741824\n";
  files.cgroup_files["/sys/fs/cgroup/cpu.max"] = "400000 100000\n";
  MachineLimits limits = LimitsOf(files);
  CHECK(limits.memory_kib == 0);
  CHECK(limits.cpus == 4);
  files.cgroup_files["/sys/fs/cgroup/memory.max"] = "max\n";
  files.cgroup_files["/sys/fs/cgroup/cpu.max"] = "max 100000\n";
  limits = LimitsOf(files);
  CHECK(limits.memory_kib == 20681592);
  CHECK(limits.cpus == 64);
}

TEST_CASE("limits: no cgroup at all, nor /proc/meminfo") {
  MachineLimits limits = LimitsOf(LimitFiles{"", "", "", {}, 8, 0});
  CHECK_FALSE(limits.memory_kib);
  CHECK(limits.cpus == 8);
  CHECK(LimitsOf(LimitFiles{kMeminfo, "", "", {}, 0, 0}).cpus == 1);
}

TEST_CASE("limits: the affinity, where tighter than the cores and the quota") {
  LimitFiles files = NestedV2();
  files.affinity = 1;
  MachineLimits limits = LimitsOf(files);
  CHECK(limits.cpus == 1);
  CHECK(limits.cpu_source == "the CPUs the process may run on (its affinity)");
  files.affinity = 4;
  CHECK(LimitsOf(files).cpus == 2);  // the quota is tighter
}

TEST_CASE("limits: read through the file system: the cgroups' files that exist") {
  FakeFileSystem disk({{"/proc/meminfo", kMeminfo},
                       {"/proc/self/cgroup", kV2Cgroups},
                       {"/proc/self/mountinfo", kV2Mountinfo},
                       {std::string(kUserSlice) + "/memory.max", "8589934592\n"},
                       {std::string(kUserSlice) + "/memory.current", "0\n"}});
  LimitFiles files = ReadLimitFiles(disk, 16, 8);
  CHECK(files.cgroup_files ==
        std::map<std::string, std::string>{{std::string(kUserSlice) + "/memory.max", "8589934592\n"},
                                           {std::string(kUserSlice) + "/memory.current", "0\n"}});
  CHECK(files.affinity == 8);
  MachineLimits limits = LimitsOf(files);
  CHECK(limits.memory_kib == 8 * 1024 * 1024);
  CHECK(limits.cpus == 8);
}

TEST_CASE("limits: this process's, read from /proc and /sys") {
  MachineLimits limits = MachineLimitsHere(RealFileSystem());
  CHECK(limits.cpus >= 1);
  CHECK(limits.cpus <= std::max(1u, std::thread::hardware_concurrency()));
  CHECK_FALSE(limits.cpu_source.empty());
}

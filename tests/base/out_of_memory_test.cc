#include <doctest/doctest.h>

#include <csignal>

#include "src/base/out_of_memory.h"
#include "tests/test_support.h"

using namespace fastcuda;
using fastcuda::testing::FakeFileSystem;

namespace {

ProcessResult KilledBy(int signal) { return {128 + signal, signal}; }
ProcessResult Exited(int code) { return {code, 0}; }

const OomKillCounts kBefore = {{"/proc/vmstat", 3}, {"/sys/fs/cgroup/memory/job/memory.oom_control", 0}};
const OomKillCounts kMachineKilled = {{"/proc/vmstat", 4},
                                      {"/sys/fs/cgroup/memory/job/memory.oom_control", 0}};
const OomKillCounts kCgroupKilled = {{"/proc/vmstat", 3},
                                     {"/sys/fs/cgroup/memory/job/memory.oom_control", 1}};

}  // namespace

TEST_CASE("out of memory: a SIGKILL while the out-of-memory killer's count grew") {
  CHECK(OutOfMemoryReason(KilledBy(SIGKILL), "", kBefore, kMachineKilled) ==
        "killed by SIGKILL by the kernel's out-of-memory killer");
  CHECK(OutOfMemoryReason(KilledBy(SIGKILL), "", kBefore, kCgroupKilled).has_value());
  // A SIGKILL from elsewhere, the counts unchanged: a failure like any other.
  CHECK_FALSE(OutOfMemoryReason(KilledBy(SIGKILL), "", kBefore, kBefore).has_value());
  // Other signals are the program's own crash.
  CHECK_FALSE(OutOfMemoryReason(KilledBy(SIGSEGV), "", kBefore, kMachineKilled).has_value());
  // No count readable at all: a SIGKILL is taken for the killer's.
  CHECK(
      OutOfMemoryReason(KilledBy(SIGKILL), "", {}, {})->find("taken for the kernel's out-of-memory killer") !=
      std::string::npos);
}

TEST_CASE("out of memory: a compiler driver or nvcc whose child the killer ended") {
  const std::string gcc =
      "g++: fatal error: Killed signal terminated program cc1plus\ncompilation terminated.\n";
  CHECK(
      OutOfMemoryReason(Exited(1), gcc, kBefore, kMachineKilled) ==
      "\"g++: fatal error: Killed signal terminated program cc1plus\" by the kernel's out-of-memory killer");
  CHECK_FALSE(OutOfMemoryReason(Exited(1), gcc, kBefore, kBefore).has_value());
  const std::string nvcc = "nvcc error   : 'cicc' died due to signal 9 (Kill signal)\n";
  CHECK(OutOfMemoryReason(Exited(255), nvcc, kBefore, kCgroupKilled).has_value());
}

TEST_CASE("out of memory: what allocators and compilers say when memory runs out") {
  for (const char* said : {"cc1plus: out of memory allocating 65536 bytes after a total of 123 bytes",
                           "terminate called after throwing an instance of 'std::bad_alloc'",
                           "virtual memory exhausted: Cannot allocate memory", "LLVM ERROR: out of memory",
                           "ptxas fatal   : Out of memory"}) {
    CAPTURE(said);
    std::optional<std::string> reason =
        OutOfMemoryReason(KilledBy(SIGABRT), std::string("warning: x\n") + said + "\n", kBefore, kBefore);
    REQUIRE(reason.has_value());
    CHECK(*reason == std::string("it said \"") + said + "\"");
  }
  CHECK_FALSE(OutOfMemoryReason(Exited(2), "k.cu(3): error: identifier \"x\" is undefined\n", {}, {}));
  // A program that succeeded ran out of nothing, whatever it printed.
  CHECK_FALSE(OutOfMemoryReason(Exited(0), "out of memory\n", {}, {}));
}

TEST_CASE("out of memory: the counts of the machine and of the process's innermost memory cgroups") {
  // cgroup v1 (hybrid: an empty v2 hierarchy at its root beside v1's controllers).
  const char* v1_cgroups = "4:memory:/process_api/job\n1:cpu:/\n0::/\n";
  const char* v1_mounts =
      "32 31 0:29 / /sys/fs/cgroup/cpu rw,relatime - cgroup cgroup rw,cpu\n"
      "35 31 0:32 / /sys/fs/cgroup/memory rw,relatime - cgroup cgroup rw,memory\n"
      "41 31 0:38 / /sys/fs/cgroup/unified rw,relatime - cgroup2 cgroup2 rw\n";
  CHECK(OomKillFiles(v1_cgroups, v1_mounts) ==
        std::vector<std::string>{"/proc/vmstat", "/sys/fs/cgroup/memory/process_api/job/memory.oom_control",
                                 "/sys/fs/cgroup/unified/memory.events"});
  // cgroup v2 in a container: the cgroup namespace's root.
  CHECK(OomKillFiles("0::/\n", "30 25 0:26 / /sys/fs/cgroup rw - cgroup2 cgroup2 rw\n") ==
        std::vector<std::string>{"/proc/vmstat", "/sys/fs/cgroup/memory.events"});
  FakeFileSystem disk({{"/proc/self/cgroup", v1_cgroups},
                       {"/proc/self/mountinfo", v1_mounts},
                       {"/proc/vmstat", "pgfault 1234\noom_kill 7\nunevictable_pgs_culled 0\n"},
                       {"/sys/fs/cgroup/memory/process_api/job/memory.oom_control",
                        "oom_kill_disable 0\nunder_oom 0\noom_kill 2\n"}});
  // The machine's count holds every kill; the cgroups' are read where it cannot be.
  CHECK(ReadOomKillCounts(disk) == OomKillCounts{{"/proc/vmstat", 7}});
  disk.Remove("/proc/vmstat");
  CHECK(ReadOomKillCounts(disk) ==
        OomKillCounts{{"/sys/fs/cgroup/memory/process_api/job/memory.oom_control", 2}});
  CHECK(OomKillCountsIn({{"/x/memory.events", "low 0\nhigh 0\nmax 5\noom 2\noom_kill 1\noom_group_kill 0\n"},
                         {"/y/memory.oom_control", "oom_kill_disable 0\nunder_oom 0\n"},
                         {"/z/memory.events", "oom_group_kill 3\noom_kill 4"},
                         {"/w/memory.events", "oom_kill x\n"}}) ==
        OomKillCounts{{"/x/memory.events", 1}, {"/z/memory.events", 4}});
  CHECK(ReadOomKillCounts(FakeFileSystem()).empty());
}

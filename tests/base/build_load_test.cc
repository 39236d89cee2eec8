#include "src/base/build_load.h"

#include <doctest/doctest.h>
#include <unistd.h>

#include <thread>

#include "src/base/file_system.h"
#include "src/base/process.h"

using namespace fastcuda;

namespace {

ProcessInfo Ninja(int pid, int parent, std::vector<std::string> argv) { return {pid, parent, "ninja", argv}; }
ProcessInfo Other(int pid, int parent, const std::string& name) { return {pid, parent, name, {}}; }

/// `jobs` shells of Ninja `ninja_pid` (pids ninja_pid * 100 + job), the
/// first `splitting` of them steps that split, the first running a
/// `fastcuda step`; returns that step's pid.
int AddJobs(std::vector<ProcessInfo>& processes, int ninja_pid, int jobs, int splitting = 0) {
  for (int job = 0; job < jobs; ++job) {
    std::string flags = job < splitting ? "--split-auto " : "";
    std::string command = "/b/fastcuda step --cwd /b " + flags + "x.ptx -- cicc";
    processes.push_back({ninja_pid * 100 + job, ninja_pid, "sh", {"/bin/sh", "-c", command}});
  }
  processes.push_back(Other(ninja_pid * 100 + 99, ninja_pid * 100, "fastcuda"));
  return ninja_pid * 100 + 99;
}

}  // namespace

TEST_CASE("a Ninja is a process named ninja or ninja-something; a make, make or gmake") {
  CHECK(IsNinja(Other(1, 0, "ninja")));
  CHECK(IsNinja(Other(1, 0, "ninja-build")));
  CHECK_FALSE(IsNinja(Other(1, 0, "a) b (c")));
  CHECK(IsMake(Other(1, 0, "gmake")));
  CHECK_FALSE(IsMake(Other(1, 0, "cmake")));
}

TEST_CASE("the jobs are the Ninja's children; the slots its -j, make's -j and the cores") {
  std::vector<ProcessInfo> processes = {Other(1, 0, "systemd"), Ninja(5, 1, {"ninja", "-C", "build"})};
  int step = AddJobs(processes, 5, 6, 5);
  BuildLoad load = BuildLoadOf(processes, step, 16, "");
  CHECK(load.slots == 16);
  CHECK(load.running == 6);
  CHECK(load.splitting == 5);
  processes[1].argv = {"ninja", "-j", "4"};
  CHECK(BuildLoadOf(processes, step, 16, "").slots == 4);
  processes[1].argv = {"ninja", "-j8"};
  CHECK(BuildLoadOf(processes, step, 16, "").slots == 8);
  CHECK(BuildLoadOf(processes, step, 4, "").slots == 4);  // never more than the cores
  CHECK(BuildLoadOf(processes, step, 16, " -j3 --jobserver-auth=fifo:/tmp/f").slots == 3);
  processes[1].argv = {"ninja", "-j0"};  // Ninja's "no limit"
  CHECK(BuildLoadOf(processes, step, 16, "").slots == 16);
}

TEST_CASE("a launcher's Ninja inside a job of the build: the jobs of both, less the one holding it") {
  std::vector<ProcessInfo> processes = {Ninja(5, 1, {"ninja", "-j", "16"})};
  AddJobs(processes, 5, 12);  // the outer build's jobs; the first one's step is a launcher
  processes.push_back(Ninja(6, 599, {"ninja", "-j", "16"}));
  int step = AddJobs(processes, 6, 2, 1);  // the launcher's graph runs two steps, one splits
  BuildLoad load = BuildLoadOf(processes, step, 16, "");
  CHECK(load.running == 13);
  CHECK(load.splitting == 1);
  CHECK(load.slots == 16);
}

TEST_CASE("the build a process runs inside: the smallest -j of the Ninjas above it, not its own") {
  std::vector<ProcessInfo> processes = {Other(1, 0, "init"), Ninja(5, 1, {"ninja", "-j", "4"}),
                                        Other(6, 5, "sh"), Other(7, 6, "fastcuda")};
  CHECK(EnclosingNinjaJobs(processes, 7) == 4);
  processes.push_back(Ninja(8, 7, {"ninja", "-j", "16"}));  // FastCuda's own Ninja, below it
  CHECK(EnclosingNinjaJobs(processes, 7) == 4);
  processes[1].argv = {"ninja", "-C", "build"};  // Ninja's own default: no limit given
  CHECK_FALSE(EnclosingNinjaJobs(processes, 7));
  CHECK_FALSE(EnclosingNinjaJobs({Other(1, 0, "init"), Other(2, 1, "bash")}, 2));
}

TEST_CASE("without a Ninja above the step every slot counts as busy") {
  std::vector<ProcessInfo> processes = {Other(1, 0, "init"), Other(2, 1, "bash"), Other(3, 2, "fastcuda")};
  BuildLoad load = BuildLoadOf(processes, 3, 8, "");
  CHECK(load.running == load.slots);
  CHECK(load.splitting == 1);
  CHECK(BuildLoadOf({}, 3, 8, "").running == 8);  // not even itself in the table
}

TEST_CASE("a parent cycle from recycled pids ends the walk") {
  std::vector<ProcessInfo> processes = {Other(2, 3, "a"), Other(3, 2, "b")};
  CHECK(BuildLoadOf(processes, 2, 4, "").running == 4);
}

TEST_CASE("this process's own load reads /proc") {
  BuildLoad load = CurrentBuildLoad(RealFileSystem(), CurrentEnvironment());
  CHECK(load.slots >= 1);
  CHECK(load.slots <= static_cast<int>(std::thread::hardware_concurrency()));
  CHECK(load.running >= 1);
  CHECK(load.splitting >= 1);
  CHECK(load.splitting <= load.running);
}

TEST_CASE("the enclosing Ninja is the nearest one, unless a make is nearer") {
  std::vector<ProcessInfo> processes = {Other(1, 0, "init"), Ninja(5, 1, {"ninja"}), Other(6, 5, "sh"),
                                        Other(7, 6, "fastcuda")};
  std::optional<ProcessInfo> ninja = EnclosingNinja(processes, 7);
  REQUIRE(ninja);
  CHECK(ninja->pid == 5);
  processes.push_back(Ninja(8, 7, {"ninja", "-f", "inner.ninja"}));
  processes.push_back(Other(9, 8, "fastcuda"));
  CHECK(EnclosingNinja(processes, 9)->pid == 8);  // a launcher's own Ninja is the nearer
  processes[2].name = "make";
  CHECK_FALSE(EnclosingNinja(processes, 7));  // a Makefile build run by a Ninja job
  CHECK_FALSE(EnclosingNinja({Other(1, 0, "init"), Other(2, 1, "bash")}, 2));
}

#include "src/base/build_load.h"

#include <re2/re2.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <set>

#include "src/base/file_system.h"
#include "src/base/machine.h"
#include "src/base/ninja_jobs.h"
#include "src/base/process.h"
#include "src/base/toolchain_environment.h"

namespace fastcuda {
namespace {

/// The -j of a Ninja command line; nullopt without one, or for -j0 (no limit).
std::optional<int> NinjaJobLimit(const std::vector<std::string>& argv) {
  for (size_t i = 1; i < argv.size(); ++i) {
    std::string value;
    if (argv[i] == "-j" && i + 1 < argv.size()) value = argv[i + 1];
    else if (argv[i].starts_with("-j")) value = argv[i].substr(2);
    int jobs = 0;
    if (RE2::FullMatch(value, R"re((\d+))re", &jobs) && jobs > 0) return jobs;
  }
  return std::nullopt;
}

/// Splits /proc/PID/cmdline's NUL-separated words.
std::vector<std::string> CommandLineWords(const std::string& cmdline) {
  std::vector<std::string> words;
  size_t start = 0;
  for (size_t end; (end = cmdline.find('\0', start)) != std::string::npos; start = end + 1) {
    words.push_back(cmdline.substr(start, end - start));
  }
  if (start < cmdline.size()) words.push_back(cmdline.substr(start));
  return words;
}

/// /proc/PID/stat and /proc/PID/cmdline of one process; nullopt if it has ended.
std::optional<ProcessInfo> ReadProcess(const FileSystem& disk, int pid) {
  std::string directory = "/proc/" + std::to_string(pid);
  std::optional<std::string> stat = disk.Read(directory + "/stat");
  std::optional<ProcessInfo> process = stat ? ParseProcessStat(*stat) : std::nullopt;
  if (process) process->argv = CommandLineWords(disk.Read(directory + "/cmdline").value_or(""));
  return process;
}

/// `self` and its ancestors, nearest first, a few reads where a scan of
/// /proc would read every process: what EnclosingNinja and
/// EnclosingNinjaJobs need. A cycle (a recycled pid) or 64 levels end it.
std::vector<ProcessInfo> ReadAncestry(const FileSystem& disk, int self) {
  std::vector<ProcessInfo> processes;
  std::set<int> seen;
  for (int pid = self, depth = 0; pid > 0 && depth < 64 && seen.insert(pid).second; ++depth) {
    std::optional<ProcessInfo> process = ReadProcess(disk, pid);
    if (!process) break;
    pid = process->parent;
    processes.push_back(std::move(*process));
  }
  return processes;
}

/// What BuildLoadOf needs besides: the children of the Ninjas among
/// `self`'s ancestors. A Ninja whose children cannot be listed (a kernel
/// without /proc/PID/task/TID/children) counts as no Ninja, so that nothing
/// splits rather than too much.
std::vector<ProcessInfo> ReadBuildProcesses(const FileSystem& disk, int self) {
  std::vector<ProcessInfo> processes = ReadAncestry(disk, self);
  std::set<int> seen;
  std::vector<int64_t> children;  // of every Ninja ancestor
  for (const ProcessInfo& process : processes) {
    seen.insert(process.pid);
    if (!IsNinja(process)) continue;
    std::string task = "/proc/" + std::to_string(process.pid) + "/task/" + std::to_string(process.pid);
    std::optional<std::string> listed = disk.Read(task + "/children");
    if (!listed) return {};
    for (int64_t child : ChildPids(listed)) children.push_back(child);
  }
  for (int64_t child : children) {
    if (!seen.insert(static_cast<int>(child)).second) continue;  // an ancestor, read already
    if (std::optional<ProcessInfo> process = ReadProcess(disk, static_cast<int>(child)))
      processes.push_back(std::move(*process));
  }
  return processes;
}

/// The ancestors of `self` among `processes`, its parent first, as far as
/// they are listed; a cycle (a recycled pid) ends the walk.
std::vector<const ProcessInfo*> AncestorsOf(const std::vector<ProcessInfo>& processes, int self) {
  std::map<int, const ProcessInfo*> by_pid;
  for (const ProcessInfo& process : processes) by_pid[process.pid] = &process;
  std::vector<const ProcessInfo*> ancestors;
  std::set<int> seen = {self};
  auto it = by_pid.find(self);
  while (it != by_pid.end() && (it = by_pid.find(it->second->parent)) != by_pid.end() &&
         seen.insert(it->first).second) {
    ancestors.push_back(it->second);
  }
  return ancestors;
}

/// True if a job's command line asks for the threads to be chosen.
bool Splits(const ProcessInfo& job) {
  return std::any_of(job.argv.begin(), job.argv.end(),
                     [](const std::string& word) { return word.find(kSplitAutoFlag) != std::string::npos; });
}

}  // namespace

bool IsNinja(const ProcessInfo& process) { return process.name.starts_with("ninja"); }

bool IsMake(const ProcessInfo& process) { return process.name == "make" || process.name == "gmake"; }

BuildLoad BuildLoadOf(const std::vector<ProcessInfo>& processes, int self, int cores,
                      std::string_view makeflags) {
  std::map<int, const ProcessInfo*> by_pid;
  std::map<int, int> children, splitting_children;
  for (const ProcessInfo& process : processes) {
    by_pid[process.pid] = &process;
    ++children[process.parent];
    if (Splits(process)) ++splitting_children[process.parent];
  }
  auto find = [&](int pid) {
    auto it = by_pid.find(pid);
    return it == by_pid.end() ? nullptr : it->second;
  };
  BuildLoad load{std::max(1, cores), 0, 0};
  if (std::optional<unsigned> make_jobs = MakeJobLimit(makeflags)) {
    load.slots = std::clamp(static_cast<int>(*make_jobs), 1, load.slots);
  }
  int ninjas = 0;
  // The depth bound ends a walk that a recycled pid turned into a cycle.
  const ProcessInfo* process = find(self);
  for (int depth = 0; process && depth < 64; ++depth, process = find(process->parent)) {
    if (!IsNinja(*process)) continue;
    ++ninjas;
    load.running += children[process->pid];
    load.splitting += splitting_children[process->pid];
    if (std::optional<int> jobs = NinjaJobLimit(process->argv)) load.slots = std::min(load.slots, *jobs);
  }
  load.running = ninjas == 0 ? load.slots : std::max(1, load.running - (ninjas - 1));
  load.splitting = std::clamp(load.splitting, 1, load.running);
  return load;
}

std::optional<int> EnclosingNinjaJobs(const std::vector<ProcessInfo>& processes, int self) {
  std::optional<int> smallest;
  for (const ProcessInfo* ancestor : AncestorsOf(processes, self)) {
    if (!IsNinja(*ancestor)) continue;
    if (std::optional<int> jobs = NinjaJobLimit(ancestor->argv))
      smallest = std::min(smallest.value_or(*jobs), *jobs);
  }
  return smallest;
}

std::optional<ProcessInfo> EnclosingNinja(const std::vector<ProcessInfo>& processes, int self) {
  for (const ProcessInfo* ancestor : AncestorsOf(processes, self)) {
    if (IsNinja(*ancestor)) return *ancestor;
    if (IsMake(*ancestor)) return std::nullopt;
  }
  return std::nullopt;
}

std::optional<EnclosingNinjaProcess> EnclosingNinjaHere(const FileSystem& fs) {
  std::optional<ProcessInfo> ninja = EnclosingNinja(ReadAncestry(fs, getpid()), getpid());
  if (!ninja) return std::nullopt;
  std::error_code error;
  std::filesystem::path cwd =
      std::filesystem::read_symlink("/proc/" + std::to_string(ninja->pid) + "/cwd", error);
  if (error) return std::nullopt;
  return EnclosingNinjaProcess{*ninja, cwd.string()};
}

std::optional<int> EnclosingNinjaJobsHere(const FileSystem& fs) {
  return EnclosingNinjaJobs(ReadAncestry(fs, getpid()), getpid());
}

BuildLoad CurrentBuildLoad(const FileSystem& fs, const std::map<std::string, std::string>& environment) {
  return BuildLoadOf(ReadBuildProcesses(fs, getpid()), getpid(), static_cast<int>(MachineLimitsHere(fs).cpus),
                     EnvironmentValue(environment, "MAKEFLAGS"));
}

}  // namespace fastcuda

#include "src/build_load.h"

#include <re2/re2.h>
#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <set>

#include "src/file_system.h"
#include "src/ninja_jobs.h"
#include "src/process.h"

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

/// Every process of the machine, with the argv of the Ninjas and their
/// children (the others' are not needed, and reading them all costs).
std::vector<ProcessInfo> ReadProcessTable() {
  RealFileSystem disk;
  std::vector<ProcessInfo> processes;
  std::set<int> ninjas;
  std::error_code error;
  for (const auto& entry : std::filesystem::directory_iterator("/proc", error)) {
    std::optional<std::string> stat = disk.Read(entry.path().string() + "/stat");
    std::optional<ProcessInfo> process = stat ? ParseProcessStat(*stat) : std::nullopt;
    if (!process) continue;  // not a process, or it just ended
    if (IsNinja(*process)) ninjas.insert(process->pid);
    processes.push_back(std::move(*process));
  }
  for (ProcessInfo& process : processes) {
    if (ninjas.contains(process.pid) || ninjas.contains(process.parent)) {
      process.argv = CommandLineWords(disk.Read("/proc/" + std::to_string(process.pid) + "/cmdline").value_or(""));
    }
  }
  return processes;
}

/// True if a job's command line asks for the threads to be chosen.
bool Splits(const ProcessInfo& job) {
  return std::any_of(job.argv.begin(), job.argv.end(),
                     [](const std::string& word) { return word.find(kSplitAutoFlag) != std::string::npos; });
}

}  // namespace

std::optional<ProcessInfo> ParseProcessStat(std::string_view stat) {
  size_t open = stat.find('('), close = stat.rfind(')');
  if (open == std::string_view::npos || close == std::string_view::npos || close < open) return std::nullopt;
  ProcessInfo process;
  process.name = std::string(stat.substr(open + 1, close - open - 1));
  std::string_view before = stat.substr(0, open), after = stat.substr(close + 1);
  if (!RE2::FullMatch(re2::StringPiece(before.data(), before.size()), R"re((\d+) )re", &process.pid) ||
      !RE2::PartialMatch(re2::StringPiece(after.data(), after.size()), R"re(^ \S+ (\d+))re", &process.parent)) {
    return std::nullopt;
  }
  return process;
}

bool IsNinja(const ProcessInfo& process) { return process.name.starts_with("ninja"); }

BuildLoad BuildLoadOf(const std::vector<ProcessInfo>& processes, int self, int cores,
                      std::string_view makeflags) {
  std::map<int, const ProcessInfo*> by_pid;
  std::map<int, int> children, splitting_children;
  for (const ProcessInfo& process : processes) {
    by_pid[process.pid] = &process;
    ++children[process.parent];
    if (Splits(process)) ++splitting_children[process.parent];
  }
  auto find = [&](int pid) { auto it = by_pid.find(pid); return it == by_pid.end() ? nullptr : it->second; };
  BuildLoad load{std::max(1, cores), std::max(1, cores), 0, 0};
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

BuildLoad CurrentBuildLoad() {
  int cores = 1;
  cpu_set_t mask;
  if (sched_getaffinity(0, sizeof mask, &mask) == 0) cores = CPU_COUNT(&mask);
  return BuildLoadOf(ReadProcessTable(), getpid(), cores, EnvironmentVariable("MAKEFLAGS"));
}

}  // namespace fastcuda

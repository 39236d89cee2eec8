#include "src/base/out_of_memory.h"

#include <re2/re2.h>

#include <charconv>
#include <csignal>

#include "src/base/cgroup.h"

namespace fastcuda {
namespace {

constexpr const char* kMachineOomKills = "/proc/vmstat";

/// The first line of `output` that matches `pattern`, trimmed, or nullopt.
std::optional<std::string> LineMatching(std::string_view output, const RE2& pattern) {
  re2::StringPiece input(output.data(), output.size());
  std::string line;
  if (!RE2::FindAndConsume(&input, pattern, &line)) return std::nullopt;
  constexpr size_t kLongest = 200;
  if (line.size() > kLongest) line = line.substr(0, kLongest) + "...";
  return line;
}

/// True where some count in `after` is above what `before` had for it.
bool Grew(const OomKillCounts& before, const OomKillCounts& after) {
  for (const auto& [path, count] : after) {
    auto old = before.find(path);
    if (old != before.end() && count > old->second) return true;
  }
  return false;
}

}  // namespace

std::vector<std::string> OomKillFiles(std::string_view own_cgroups, std::string_view mountinfo) {
  std::vector<std::string> files = {kMachineOomKills};
  // The innermost cgroup of each hierarchy: v2 counts the kills of its
  // whole subtree there; v1 counts a kill in the victim's own cgroup only.
  bool v2 = false, v1 = false;
  for (const CgroupDir& dir : LimitingCgroupDirs(own_cgroups, mountinfo)) {
    if (dir.controller.empty() && !v2) files.push_back(dir.path + "/memory.events");
    if (dir.controller == "memory" && !v1) files.push_back(dir.path + "/memory.oom_control");
    v2 = v2 || dir.controller.empty();
    v1 = v1 || dir.controller == "memory";
  }
  return files;
}

OomKillCounts OomKillCountsIn(const std::map<std::string, std::string>& files) {
  // A plain search: every step reads /proc/vmstat twice, where compiling a
  // pattern would cost more than the rest of the reading.
  constexpr std::string_view kKey = "oom_kill ";
  OomKillCounts counts;
  for (const auto& [path, text] : files) {
    for (size_t at = text.find(kKey); at != std::string::npos; at = text.find(kKey, at + 1)) {
      if (at > 0 && text[at - 1] != '\n') continue;  // oom_group_kill, or inside a line
      const char* digits = text.data() + at + kKey.size();
      const char* end = text.data() + text.size();
      int64_t kills = 0;
      auto [rest, error] = std::from_chars(digits, end, kills);
      if (error == std::errc() && rest != digits && (rest == end || *rest == '\n')) counts[path] = kills;
      break;
    }
  }
  return counts;
}

OomKillCounts ReadOomKillCounts(const FileSystem& fs) {
  // The machine's count holds every kill, a cgroup's too: where it can be
  // read, the cgroups' are not looked for (which costs a step more than
  // the rest of its own work: parsing mountinfo).
  const std::vector<std::string> machine = {kMachineOomKills};
  std::map<std::string, std::string> texts;
  auto read = [&](const std::vector<std::string>& paths) {
    for (const std::string& path : paths) {
      if (std::optional<std::string> text = fs.Read(path)) texts[path] = *text;
    }
    return OomKillCountsIn(texts);
  };
  OomKillCounts counts = read(machine);
  if (!counts.empty()) return counts;
  return read(
      OomKillFiles(fs.Read("/proc/self/cgroup").value_or(""), fs.Read("/proc/self/mountinfo").value_or("")));
}

std::optional<std::string> OutOfMemoryReason(const ProcessResult& result, std::string_view output,
                                             const OomKillCounts& before, const OomKillCounts& after) {
  if (result.exit_code == 0) return std::nullopt;
  // gcc's driver when its cc1plus got SIGKILL; nvcc's when one of its steps did.
  static const RE2 child_killed(
      R"re((?m)^([^\n]*(?:Killed signal terminated program|died due to signal 9)[^\n]*)$)re");
  std::optional<std::string> killed_child = LineMatching(output, child_killed);
  if (result.signal == SIGKILL || killed_child) {
    const std::string what = killed_child ? "\"" + *killed_child + "\"" : "killed by SIGKILL";
    if (before.empty())
      return what + ", taken for the kernel's out-of-memory killer (no count of its kills here)";
    if (Grew(before, after)) return what + " by the kernel's out-of-memory killer";
    return std::nullopt;  // a SIGKILL from elsewhere
  }
  static const RE2 message(
      R"re((?im)^([^\n]*(?:out of memory|std::bad_alloc|memory exhausted|cannot allocate memory)[^\n]*)$)re");
  if (std::optional<std::string> line = LineMatching(output, message)) return "it said \"" + *line + "\"";
  return std::nullopt;
}

}  // namespace fastcuda

#include "src/base/proc_files.h"

#include <re2/re2.h>

#include <sstream>

namespace fastcuda {

std::optional<ProcessInfo> ParseProcessStat(std::string_view stat) {
  size_t open = stat.find('('), close = stat.rfind(')');
  if (open == std::string_view::npos || close == std::string_view::npos || close < open) return std::nullopt;
  ProcessInfo process;
  process.name = std::string(stat.substr(open + 1, close - open - 1));
  std::string_view before = stat.substr(0, open), after = stat.substr(close + 1);
  if (!RE2::FullMatch(re2::StringPiece(before.data(), before.size()), R"re((\d+) )re", &process.pid) ||
      !RE2::PartialMatch(re2::StringPiece(after.data(), after.size()), R"re(^ \S+ (\d+))re",
                         &process.parent)) {
    return std::nullopt;
  }
  // Fields 3 (the state) to 22 (starttime) follow the name.
  RE2::PartialMatch(re2::StringPiece(after.data(), after.size()), R"re(^ (?:\S+ ){19}(\d+))re",
                    &process.start_ticks);
  return process;
}

int64_t ProcessStart(const std::optional<std::string>& stat) {
  std::optional<ProcessInfo> process = stat ? ParseProcessStat(*stat) : std::nullopt;
  return process && process->start_ticks > 0 ? static_cast<int64_t>(process->start_ticks) : -1;
}

int64_t ResidentKib(const std::optional<std::string>& statm, int64_t page_kib) {
  if (!statm) return 0;
  std::istringstream fields(*statm);
  int64_t size = 0, resident = 0;
  return fields >> size >> resident ? resident * page_kib : 0;
}

std::vector<int64_t> ChildPids(const std::optional<std::string>& children) {
  std::vector<int64_t> pids;
  std::istringstream words(children.value_or(""));
  for (int64_t pid = 0; words >> pid;) pids.push_back(pid);
  return pids;
}

}  // namespace fastcuda

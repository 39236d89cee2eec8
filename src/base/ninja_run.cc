#include "src/base/ninja_run.h"

#include <optional>
#include <sstream>
#include <vector>

namespace fastcuda {
namespace {

/// What NinjaRunOf needs of one process's /proc/PID/stat.
struct ProcessStat {
  std::string command;  ///< its name (comm), which may hold spaces and parentheses
  std::string parent;
  std::string started;  ///< clock ticks since boot
};

/// /proc/`pid`/stat as `fs` reads it, or nullopt.
std::optional<ProcessStat> StatOf(const FileSystem& fs, const std::string& pid) {
  std::optional<std::string> text = fs.Read("/proc/" + pid + "/stat");
  if (!text) return std::nullopt;
  size_t open = text->find('('), close = text->rfind(')');
  if (open == std::string::npos || close == std::string::npos || close < open) return std::nullopt;
  // After the name: field 3 (state) on; the parent is field 4, the start 22.
  std::istringstream rest(text->substr(close + 1));
  std::vector<std::string> fields;
  for (std::string field; rest >> field;) fields.push_back(field);
  if (fields.size() < 20) return std::nullopt;
  return ProcessStat{text->substr(open + 1, close - open - 1), fields[1], fields[19]};
}

}  // namespace

std::string NinjaRunOf(const FileSystem& fs, const std::string& self) {
  std::optional<ProcessStat> process = StatOf(fs, self);
  // The step, the shell Ninja starts it with, a launcher's: Ninja is near.
  for (int generation = 0; process && generation < 4; ++generation) {
    std::string pid = process->parent;
    process = StatOf(fs, pid);
    if (process && process->command.starts_with("ninja")) return pid + "." + process->started;
  }
  return "";
}

}  // namespace fastcuda

#include "src/machine_load.h"

#include <re2/re2.h>
#include <sched.h>

#include <string>

#include "src/file_system.h"

namespace fastcuda {

std::optional<int> ParseRunnableTasks(std::string_view loadavg) {
  static const RE2 fields(R"re(\S+ \S+ \S+ (\d+)/\d+.*)re", RE2::Latin1);
  int runnable = 0;
  if (!RE2::PartialMatch(re2::StringPiece(loadavg.data(), loadavg.size()), fields, &runnable)) {
    return std::nullopt;
  }
  return runnable;
}

MachineLoad CurrentMachineLoad() {
  MachineLoad load;
  cpu_set_t mask;
  if (sched_getaffinity(0, sizeof mask, &mask) == 0) load.cores = CPU_COUNT(&mask);
  std::string text = RealFileSystem().Read("/proc/loadavg").value_or("");
  load.runnable = ParseRunnableTasks(text).value_or(0);
  return load;
}

}  // namespace fastcuda

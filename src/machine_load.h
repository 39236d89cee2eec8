// How busy this machine is right now, for steps that choose their threads.
#pragma once

#include <optional>
#include <string_view>

namespace fastcuda {

/// The cores this process may run on, and the tasks that are runnable now.
struct MachineLoad {
  int cores = 1;
  int runnable = 0;  ///< every runnable thread of the machine, this process included
};

/// The runnable-task count of a /proc/loadavg line ("0.5 0.4 0.3 3/512 1234").
std::optional<int> ParseRunnableTasks(std::string_view loadavg);

/// Reads the load now (the affinity mask and /proc/loadavg); a machine it
/// cannot read counts as idle.
MachineLoad CurrentMachineLoad();

}  // namespace fastcuda

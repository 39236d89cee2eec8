// Where a graph that FastCuda runs as a job of an outer Ninja shows its
// progress. That Ninja captures the job's stdout and stderr and prints them
// when the job ends, so the progress goes to the Ninja's own stdout.
#pragma once

#include <chrono>
#include <map>
#include <memory>
#include <string>

#include "src/base/build_load.h"
#include "src/base/build_progress.h"
#include "src/base/file_system.h"

namespace fastcuda {

/// A new descriptor on the output that descriptor `fd` of process `pid`
/// writes to (/proc/PID/fd/FD): a terminal that its Ninja redraws (TERM
/// set, not "dumb") gets one line redrawn in place; a pipe, a terminal
/// with TERM=dumb or a file that it appends to get plain lines. nullptr
/// where no progress can go without harm (a file written from its own
/// offset, which an append would overwrite; a terminal that stops
/// background writers, `stty tostop`), where no one reads it (/dev/null),
/// where it cannot be opened anew (a socket) or where the environment says
/// FASTCUDA_PROGRESS=0. `fs` reads /proc.
std::unique_ptr<ProgressOutput> OpenProgressOutput(int pid, int fd,
                                                   const std::map<std::string, std::string>& environment,
                                                   const FileSystem& fs);

/// The progress of a graph run as a job of the Ninja `ninja`, on that
/// Ninja's stdout (OpenProgressOutput), timed by the steady clock from now;
/// none where that Ninja was told --quiet.
struct GraphProgress {
  std::unique_ptr<ProgressOutput> output;
  std::unique_ptr<BuildProgress> progress;  ///< null where none can be shown; ends before `output`
};
GraphProgress ProgressUnderNinja(const ProcessInfo& ninja, std::chrono::milliseconds start_delay,
                                 const std::map<std::string, std::string>& environment, const FileSystem& fs);

}  // namespace fastcuda

// How FastCuda runs Ninja, for `fastcuda build` and for the launcher alike.
#pragma once

#include <string>
#include <vector>

#include "src/base/process.h"

namespace fastcuda {

/// One run of Ninja: which manifest, from where, with how many jobs.
struct NinjaRun {
  std::string dir;          ///< -C: Ninja runs in DIR, on DIR/build.ninja; empty: `manifest` from `cwd`
  std::string manifest;     ///< -f, when `dir` is empty
  std::string cwd;          ///< empty: the current directory
  unsigned jobs = 0;        ///< as asked (-j, FASTCUDA_JOBS); 0: the jobserver's or the machine's
  bool quiet = false;       ///< no status lines: the steps' output is all there is to read
  bool capture = false;     ///< collect Ninja's output instead of letting it print
  int lock_fd = -1;         ///< a lock that Ninja holds until its last step ends; -1: none
  bool keep_going = false;  ///< -k 0: build what does not depend on a failed step
  std::vector<std::string> targets;  ///< empty: the manifest's defaults
};

/// Runs NinjaProgram() as `run` says, in a process group of its own (see
/// ProcessSpec::own_process_group), with the job arguments of
/// NinjaJobArgumentsHere, and waits for it.
ProcessResult RunNinja(const NinjaRun& run);

}  // namespace fastcuda

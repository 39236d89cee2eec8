// `fastcuda step`, on the processes and file system it is given.
#pragma once

#include <map>
#include <string>

#include "src/base/file_system.h"
#include "src/base/memory_admission.h"
#include "src/base/process.h"
#include "src/base/step_gate.h"
#include "src/plan/step_protocol.h"

namespace fastcuda {

/// Runs one step: sets its outputs aside, runs its program through `runner`,
/// keeps an output that came out the same (with its old mtime, for
/// restat), removes every output of a failed step, keeps and rewrites its
/// depfile, touches its stamp. `inherited` is the environment the program
/// inherits (LauncherVariables reads it). `locks`: the graph's StepGate
/// and memory ledger (StepInvocation::lock_dir), or nullptr: the program
/// waits for its part of the graph's memory budget (MemoryAdmission, with
/// `hooks`, or this process's), and where it ran out of memory beside other
/// steps runs again alone. Returns the program's exit status.
int RunStep(StepInvocation step, CommandRunner& runner, WritableFileSystem& fs,
            const std::map<std::string, std::string>& inherited, LockFiles* locks = nullptr,
            const AdmissionHooks* hooks = nullptr);

}  // namespace fastcuda

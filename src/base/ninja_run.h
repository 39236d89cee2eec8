// Which run of Ninja a process belongs to: `.ninja_log` says when each edge
// ran within its build, not where one build's records end and the next's
// begin, so a step tells its own run.
#pragma once

#include <string>

#include "src/base/file_system.h"

namespace fastcuda {

/// "PID.STARTTIME" of the nearest `ninja` among the ancestors of the process
/// `self` (a /proc name: "self" is the caller), as `fs` reads their
/// /proc/PID/stat, through the shell Ninja runs each command with: the PID
/// and its start (in clock ticks since boot) name one run, as a PID reused
/// later has another start. "" where none is a few generations up (a step
/// run by hand, no /proc).
std::string NinjaRunOf(const FileSystem& fs, const std::string& self = "self");

}  // namespace fastcuda

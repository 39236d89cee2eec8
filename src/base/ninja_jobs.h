// How many jobs FastCuda's Ninja may run, inside or outside a jobserver.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "src/base/command_io.h"

namespace fastcuda {

/// What decides the Ninja job count.
struct JobContext {
  unsigned requested = 0;  ///< -j / FASTCUDA_JOBS; 0 when not given
  std::string makeflags;   ///< MAKEFLAGS of the environment (a parent make's)
  int ninja_minor = 11;    ///< Ninja's version 1.x
  unsigned cores = 1;      ///< the CPUs the machine's tightest limit leaves (MachineLimits)
  std::optional<unsigned> enclosing_ninja_jobs = {};  ///< the -j of a Ninja this process runs inside
};

/// A job count as a user writes it (`-j N`, FASTCUDA_JOBS): digits, 0 for
/// one job per core. Throws std::invalid_argument naming `what` otherwise
/// (a negative count would reach Ninja, which reads it as unlimited).
unsigned ParseJobCount(std::string_view text, std::string_view what);

/// The -jN of a parent make's MAKEFLAGS, if it has one.
std::optional<unsigned> MakeJobLimit(std::string_view makeflags);

/// Ninja's job arguments: `-j N`, or none where Ninja (1.13 and later) joins
/// a parent make's FIFO jobserver by itself. Under an older Ninja or a
/// pipe-style jobserver FastCuda limits itself to make's own -jN, inside a
/// Ninja to that Ninja's -j (at most the cores): a user's `cmake --build -j 1`
/// holds for the graph too.
std::vector<std::string> NinjaJobArguments(const JobContext& context);

/// The job arguments for a Ninja whose command line has no -j: Ninja's own
/// default (the CPUs + 2) counted from `cpus`, which the machine's limits
/// leave, where those are fewer than its `cores` (a container's CPU quota
/// or the affinity); none otherwise, or where a parent make's MAKEFLAGS
/// decides.
std::vector<std::string> DefaultNinjaJobArguments(unsigned cpus, unsigned cores, std::string_view makeflags);

/// DefaultNinjaJobArguments for this process.
std::vector<std::string> DefaultNinjaJobArgumentsHere(const CommandIo& io);

/// The minor version of the Ninja at `ninja` (ProgramVersion), or 11.
int NinjaMinorVersion(CommandRunner& runner, const std::string& ninja);

/// NinjaJobArguments for this process: its MAKEFLAGS, the Ninja `ninja`
/// and the CPUs its limits leave (a container's CPU quota, the affinity).
std::vector<std::string> NinjaJobArgumentsHere(const CommandIo& io, unsigned requested,
                                               const std::string& ninja);

/// The Ninja to run: FASTCUDA_NINJA of `environment`, else the first
/// `ninja` on its PATH that is not fastcuda itself (linked as `ninja`: see
/// `fastcuda ninja`).
std::string NinjaProgram(const std::map<std::string, std::string>& environment);

}  // namespace fastcuda

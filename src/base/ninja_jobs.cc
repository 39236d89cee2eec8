#include "src/base/ninja_jobs.h"

#include <re2/re2.h>

#include <algorithm>
#include <stdexcept>
#include <thread>

#include "src/base/build_load.h"
#include "src/base/machine.h"
#include "src/base/process.h"
#include "src/base/toolchain_environment.h"

namespace fastcuda {

unsigned ParseJobCount(std::string_view text, std::string_view what) {
  unsigned count = 0;
  bool digits = !text.empty() && text.size() <= 6;
  for (char c : text) {
    digits = digits && c >= '0' && c <= '9';
    if (digits) count = count * 10 + (c - '0');
  }
  if (!digits) {
    throw std::invalid_argument(std::string(what) + " must be a number of jobs (0: one per core), not '" +
                                std::string(text) + "'");
  }
  return count;
}

std::optional<unsigned> MakeJobLimit(std::string_view makeflags) {
  static const RE2 jobs_flag(R"re((?:^|\s)-j\s*(\d+))re");
  unsigned jobs = 0;
  if (!RE2::PartialMatch(re2::StringPiece(makeflags.data(), makeflags.size()), jobs_flag, &jobs))
    return std::nullopt;
  return jobs;
}

std::vector<std::string> NinjaJobArguments(const JobContext& context) {
  if (context.requested) return {"-j", std::to_string(context.requested)};
  if (context.ninja_minor >= 13 && RE2::PartialMatch(context.makeflags, R"re(--jobserver-auth=fifo:)re")) {
    return {};
  }
  if (std::optional<unsigned> make_jobs = MakeJobLimit(context.makeflags)) {
    return {"-j", std::to_string(*make_jobs)};
  }
  unsigned cores = std::max(1u, context.cores);
  return {"-j", std::to_string(std::min(context.enclosing_ninja_jobs.value_or(cores), cores))};
}

std::vector<std::string> NinjaJobArgumentsHere(const CommandIo& io, unsigned requested,
                                               const std::string& ninja) {
  JobContext context{requested, EnvironmentValue(io.environment, "MAKEFLAGS"), 11,
                     MachineLimitsHere(io.fs).cpus};
  // Only a jobserver makes the version matter; do not spawn Ninja otherwise.
  if (!context.makeflags.empty()) context.ninja_minor = NinjaMinorVersion(io.runner, ninja);
  if (!requested && context.makeflags.empty()) {
    if (std::optional<int> jobs = EnclosingNinjaJobsHere(io.fs)) context.enclosing_ninja_jobs = *jobs;
  }
  return NinjaJobArguments(context);
}

std::vector<std::string> DefaultNinjaJobArguments(unsigned cpus, unsigned cores, std::string_view makeflags) {
  if (cpus >= cores || !makeflags.empty()) return {};
  return {"-j", std::to_string(cpus <= 1 ? 2 : cpus == 2 ? 3 : cpus + 2)};  // Ninja's GuessParallelism
}

std::vector<std::string> DefaultNinjaJobArgumentsHere(const CommandIo& io) {
  MachineLimits limits = MachineLimitsHere(io.fs);
  return DefaultNinjaJobArguments(limits.cpus, std::thread::hardware_concurrency(),
                                  EnvironmentValue(io.environment, "MAKEFLAGS"));
}

std::string NinjaProgram(const std::map<std::string, std::string>& environment) {
  std::string chosen = EnvironmentValue(environment, "FASTCUDA_NINJA");
  if (!chosen.empty()) return chosen;
  // `ninja` on PATH may be fastcuda itself, linked under that name for a
  // generator that runs `ninja` (PyTorch's cpp_extension): the real one is
  // the next on PATH.
  return FindProgram("ninja", EnvironmentValue(environment, "PATH"), SelfExecutable());
}

int NinjaMinorVersion(CommandRunner& runner, const std::string& ninja) {
  int minor = 11;  // no Ninja: the build reports it when it runs one
  RE2::PartialMatch(ProgramVersion(runner, ninja), R"re(^1\.(\d+))re", &minor);
  return minor;
}

}  // namespace fastcuda

// Running `nvcc --dryrun`, behind an interface so that planning can be
// tested on recorded transcripts.
#pragma once

#include <sys/types.h>

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "src/base/process.h"

namespace fastcuda {

/// Where a program is and what version of it that is.
struct ProgramIdentity {
  std::string path;   ///< resolved on PATH, links followed
  std::string stamp;  ///< size, mtime and inode; empty if it could not be found
};

/// Runs `nvcc --dryrun`; behind an interface so tests can replay recordings.
/// Called from several threads at once.
class DryrunRunner {
 public:
  virtual ~DryrunRunner() = default;
  /// The dryrun text of `nvcc_and_args` run in `cwd`, or nullopt if nvcc failed.
  virtual std::optional<std::string> Dryrun(const std::vector<std::string>& nvcc_and_args,
                                            const std::string& cwd) const = 0;
  /// Identifies the program (nvcc, a host compiler) that `program` names,
  /// for keys.
  virtual ProgramIdentity Identify(const std::string& program) const = 0;
};

/// The process whose dryrun made the temporary directory `name`
/// (`fastcuda-dryrun-PID-N`), or nullopt for any other name.
std::optional<pid_t> DryrunDirOwner(std::string_view name);

/// The real nvcc, run through `runner`; programs are found on the PATH of
/// `environment`.
class NvccDryrunRunner : public DryrunRunner {
 public:
  NvccDryrunRunner(CommandRunner& runner, const std::map<std::string, std::string>& environment)
      : runner_(runner), environment_(environment) {}
  std::optional<std::string> Dryrun(const std::vector<std::string>& nvcc_and_args,
                                    const std::string& cwd) const override;
  ProgramIdentity Identify(const std::string& program) const override;

 private:
  CommandRunner& runner_;
  const std::map<std::string, std::string>& environment_;
};

}  // namespace fastcuda

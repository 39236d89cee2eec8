// How many steps of each kind may run at once, as a user configures it, and
// how a build whose device compiles run on remote workers shares its jobs.
#pragma once

#include <map>
#include <set>
#include <string>

#include "src/graph/launchers.h"
#include "src/nvcc/step.h"

namespace fastcuda {

/// A Ninja pool that the rules of some step kinds run in.
struct StepPool {
  std::string name;
  int depth = 1;
  bool operator==(const StepPool&) const = default;
};

/// The pool of each step kind that has one; kinds not listed share Ninja's
/// plain -j limit.
using PoolDepths = std::map<StepKind, StepPool>;

/// Reads pool depths from text such as "cicc=4,ptxas=8" (kind names are the
/// rule names, any case): each kind named gets a pool of its own,
/// fastcuda_<kind>. Throws std::invalid_argument on bad text.
PoolDepths ParsePoolDepths(const std::string& text);

/// How many steps a build whose device compiles run on remote workers runs
/// at once on each side.
struct RemoteJobs {
  unsigned local = 0;   ///< FASTCUDA_LOCAL_JOBS, else the CPUs
  unsigned remote = 0;  ///< FASTCUDA_REMOTE_JOBS, else four per local job
  bool operator==(const RemoteJobs&) const = default;
};

/// RemoteJobs of `environment` on a machine whose limits leave `cpus` CPUs
/// (0 in a variable: its default). Throws std::invalid_argument for a count
/// that is no number.
RemoteJobs RemoteJobsOf(const std::map<std::string, std::string>& environment, unsigned cpus);

/// `configured`, and where `remote_kinds` is not empty, every kind it
/// leaves out in one pool of `jobs.local` (fastcuda_local) or, for the
/// remote kinds, one of `jobs.remote` (fastcuda_remote): remote steps
/// waiting on their workers never hold the slots that the host compiles and
/// the preprocessing need on the local CPUs, nor do these oversubscribe them.
PoolDepths WithRemotePools(PoolDepths configured, const std::set<StepKind>& remote_kinds,
                           const RemoteJobs& jobs);

/// The pools of a graph whose steps run through `launchers`: those
/// `configured` text names (ParsePoolDepths), WithRemotePools of the kinds
/// they run remotely (RemoteKinds under `module_id`) and RemoteJobsOf
/// `environment` on `cpus` CPUs.
PoolDepths GraphPools(const std::string& configured, const StepLaunchers& launchers, ModuleIdMode module_id,
                      const std::map<std::string, std::string>& environment, unsigned cpus);

}  // namespace fastcuda

#include "src/plan/pool_depths.h"

#include <algorithm>
#include <iterator>
#include <stdexcept>

#include "src/base/ninja_jobs.h"
#include "src/base/text.h"
#include "src/base/toolchain_environment.h"

namespace fastcuda {

namespace {

/// A kind's own pool's name, as ParsePoolDepths makes it.
std::string OwnPoolName(StepKind kind) { return "fastcuda_" + Lower(StepKindName(kind)); }

/// The count `name` of `environment` sets, or `otherwise` where it is unset or 0.
unsigned JobsSetting(const std::map<std::string, std::string>& environment, const char* name,
                     unsigned otherwise) {
  unsigned set = ParseJobCount(EnvironmentValue(environment, name, "0"), name);
  return set ? set : otherwise;
}

}  // namespace

PoolDepths ParsePoolDepths(const std::string& text) {
  PoolDepths pools;
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find(',', start);
    if (end == std::string::npos) end = text.size();
    std::string item = text.substr(start, end - start);
    start = end + 1;
    if (item.empty()) continue;
    size_t eq = item.find('=');
    if (eq == std::string::npos) throw std::invalid_argument("pool depth needs KIND=N: " + item);
    std::string name = Lower(item.substr(0, eq));
    auto kind = std::find_if(std::begin(kAllKinds), std::end(kAllKinds),
                             [&](StepKind k) { return Lower(StepKindName(k)) == name; });
    if (kind == std::end(kAllKinds)) throw std::invalid_argument("unknown step kind: " + name);
    int depth = std::stoi(item.substr(eq + 1));
    if (depth < 1) throw std::invalid_argument("pool depth must be at least 1: " + item);
    pools[*kind] = {OwnPoolName(*kind), depth};
  }
  return pools;
}

RemoteJobs RemoteJobsOf(const std::map<std::string, std::string>& environment, unsigned cpus) {
  RemoteJobs jobs;
  jobs.local = JobsSetting(environment, "FASTCUDA_LOCAL_JOBS", std::max(1u, cpus));
  // A remote step spends part of its time in transfers and the service's
  // queue: a few per local job keep the workers busy.
  jobs.remote = JobsSetting(environment, "FASTCUDA_REMOTE_JOBS", 4 * jobs.local);
  return jobs;
}

PoolDepths WithRemotePools(PoolDepths configured, const std::set<StepKind>& remote_kinds,
                           const RemoteJobs& jobs) {
  if (remote_kinds.empty()) return configured;
  for (StepKind kind : kAllKinds) {
    if (configured.count(kind)) continue;
    configured[kind] = remote_kinds.count(kind) ? StepPool{"fastcuda_remote", static_cast<int>(jobs.remote)}
                                                : StepPool{"fastcuda_local", static_cast<int>(jobs.local)};
  }
  return configured;
}

PoolDepths GraphPools(const std::string& configured, const StepLaunchers& launchers, ModuleIdMode module_id,
                      const std::map<std::string, std::string>& environment, unsigned cpus) {
  return WithRemotePools(ParsePoolDepths(configured), RemoteKinds(launchers, environment, module_id),
                         RemoteJobsOf(environment, cpus));
}

}  // namespace fastcuda

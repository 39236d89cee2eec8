#include "src/cli/lookup_pass.h"

#include "src/base/process.h"
#include "src/cli/commands.h"
#include "src/plan/graph_dir.h"

namespace fastcuda {

int RunLookupPass(const std::string& dir, const RunNinjaFor& run_ninja, const CommandIo& io) {
  const std::string target = io.fs.Read(LookupPassPath(dir)).value_or("");
  if (target.empty()) return 0;
  if (int status = run_ninja({target}); status != 0) {
    if (ReceivedSignal()) return status;
    ComplainIfVerbose(io.environment, "the lookup pass failed (" + std::to_string(status) + ")");
  }
  return 0;
}

int RunPassesBeforeBuild(const std::string& dir, unsigned jobs, const RunNinjaFor& run_ninja,
                         const std::function<int()>& regenerate, const CommandIo& io) {
  if (int status = RunLookupPass(dir, run_ninja, io); status != 0) return status;
  bool regenerated = false;
  auto noting_regeneration = [&] {
    regenerated = true;
    return regenerate();
  };
  if (int status = RunFirstPhase(dir, jobs, run_ninja, noting_regeneration, io); status != 0) return status;
  return regenerated ? RunLookupPass(dir, run_ninja, io) : 0;
}

}  // namespace fastcuda

#include "src/cli/run_ninja.h"

#include "src/base/ninja_jobs.h"

namespace fastcuda {

ProcessResult RunNinja(const NinjaRun& run) {
  const std::string ninja = NinjaProgram();
  ProcessSpec spec{{ninja}, run.cwd, {}, run.capture, /*own_process_group=*/true, run.lock_fd};
  if (run.dir.empty()) spec.argv.insert(spec.argv.end(), {"-f", run.manifest});
  else spec.argv.insert(spec.argv.end(), {"-C", run.dir});
  if (run.quiet) spec.argv.push_back("--quiet");
  for (const std::string& argument : NinjaJobArgumentsHere(run.jobs, ninja)) spec.argv.push_back(argument);
  return RunProcess(spec);
}

}  // namespace fastcuda

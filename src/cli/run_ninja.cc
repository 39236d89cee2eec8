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
  if (run.keep_going) spec.argv.insert(spec.argv.end(), {"-k", "0"});
  if (!run.targets.empty()) spec.argv.push_back("--");
  spec.argv.insert(spec.argv.end(), run.targets.begin(), run.targets.end());
  StopIfInterrupted();  // stopped while it generated: no build
  return RunProcess(spec);
}

}  // namespace fastcuda

// `fastcuda NVCC ARGS...`: a drop-in nvcc whose sub-steps Ninja runs in parallel.
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <thread>

#include "ninja-gen/fragment.h"
#include "src/commands.h"
#include "src/file_system.h"
#include "src/nvcc_call.h"
#include "src/process.h"

namespace fastcuda {
namespace {

std::string EnvOr(const char* name, const std::string& fallback) {
  const char* value = std::getenv(name);
  return value && *value ? value : fallback;
}

/// Runs nvcc itself, as the launcher does for modes it does not split.
[[noreturn]] void RunNvccItself(const std::vector<std::string>& args, const std::string& why) {
  if (EnvOr("FASTCUDA_VERBOSE", "0") != "0") Complain("running nvcc itself: " + why);
  ExecProcess(args);
}

/// The work directory of an object: beside it, so that it shares its fate
/// (a `clean` of the build tree, a different build directory).
std::string LauncherWorkDir(const std::string& absolute_output) {
  std::filesystem::path output(absolute_output);
  return (output.parent_path() / ".fastcuda" / output.filename()).string();
}

/// Prints what the steps printed, in nvcc's order, up to the first failure;
/// returns that failure's exit code, or 0. Steps that did not run this time
/// were up to date and replay what they printed when they last ran.
int ReplayStepOutput(const StepGraph& graph, const FragmentOptions& options) {
  RealFileSystem fs;
  for (size_t i = 0; i < graph.steps.size(); ++i) {
    std::string capture = CapturePath(options, graph, i);
    std::optional<std::string> rc = fs.Read(capture + ".rc");
    if (!rc) continue;
    std::cout << fs.Read(capture + ".out").value_or("") << std::flush;
    std::cerr << fs.Read(capture + ".err").value_or("") << std::flush;
    int code = std::atoi(rc->c_str());
    if (code != 0) return code;
  }
  return 0;
}

void RemoveOutputs(const StepGraph& graph) {
  for (const std::string& output : graph.final_outputs) {
    std::filesystem::remove(std::filesystem::path(graph.cwd) / output);
  }
}

}  // namespace

int LauncherMain(const std::vector<std::string>& args) {
  const std::string cwd = std::filesystem::current_path().string();
  const std::vector<std::string> nvcc_args(args.begin() + 1, args.end());
  NvccPlan plan = PlanNvccCall(args.front(), nvcc_args, cwd, LauncherWorkDir);
  if (!plan.graph) RunNvccItself(args, plan.fallback_reason);
  const StepGraph& graph = *plan.graph;
  std::cerr << plan.dryrun_other_output << std::flush;

  FragmentOptions options{SelfExecutable(), graph.work_dir + "/nvcc.env", cwd,
                          graph.work_dir + "/capture"};
  PoolDepths pools = ParsePoolDepths(EnvOr("FASTCUDA_POOLS", ""));
  std::string manifest = graph.work_dir + "/build.ninja";
  WriteFileIfChanged(options.env_file, EnvironmentFileText(graph));
  WriteFileIfChanged(manifest, SingleGraphManifest(graph, options, pools, graph.work_dir));

  std::string jobs = EnvOr("FASTCUDA_JOBS", std::to_string(std::thread::hardware_concurrency()));
  ProcessSpec ninja{{EnvOr("FASTCUDA_NINJA", "ninja"), "-f", manifest, "-j", jobs, "--quiet"},
                    cwd, {}, true};
  ProcessResult result = RunProcess(ninja);
  int step_failure = ReplayStepOutput(graph, options);
  if (step_failure != 0 || result.exit_code != 0) RemoveOutputs(graph);
  if (step_failure != 0) return step_failure;
  if (result.exit_code != 0) {
    Complain("ninja failed on " + manifest + ":\n" + result.stdout_text + result.stderr_text);
    return result.exit_code;
  }
  return 0;
}

}  // namespace fastcuda

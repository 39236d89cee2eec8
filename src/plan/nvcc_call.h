// One nvcc call planned as a step graph: arguments, dryrun, graph, work dir.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "ninja-gen/fragment.h"
#include "src/nvcc_options.h"
#include "src/step_graph.h"

namespace fastcuda {

/// The outcome of planning: a graph, or the reason nvcc must run itself.
struct NvccPlan {
  std::optional<StepGraph> graph;
  std::string fallback_reason;     ///< set when there is no graph
  std::string dryrun_other_output; ///< what nvcc printed besides the commands (warnings)
};

/// Chooses the work directory of an nvcc call from its first output (absolute).
using WorkDirChooser = std::function<std::string(const std::string& absolute_output)>;

/// Plans `nvcc ARGS` run in `cwd`: scans the arguments, runs the dryrun with
/// this process's environment and builds the graph, its steps run through
/// `launchers` in `modes`, in the work directory that `work_dir_for` gives
/// for the call's first output.
NvccPlan PlanNvccCall(const std::string& nvcc, const std::vector<std::string>& args,
                      const std::string& cwd, const WorkDirChooser& work_dir_for,
                      const StepLaunchers& launchers, const CompileModes& modes);

/// The work directory for an output: `ROOT/BASENAME-HASH`, stable and
/// distinct for distinct absolute output paths.
std::string WorkDirFor(const std::string& root, const std::string& absolute_output);

/// Writes the graph's environment as JSON for `fastcuda step --env-file`.
std::string EnvironmentFileText(const StepGraph& graph);

/// Writes the manifest of one call's graph into `log_dir`/build.ninja, with
/// its environment file and `steps.json`. `log_dir` is where Ninja keeps
/// its log (it is the manifest's `builddir` when Ninja runs elsewhere);
/// steps record their peak memory there, and the memory of earlier builds
/// sizes the memory pools for `jobs` jobs.
void WriteCallManifest(const StepGraph& graph, const FragmentOptions& options,
                       const PoolDepths& pools, const std::string& log_dir, unsigned jobs);

/// Where the steps of a graph whose Ninja log is in `log_dir` record their
/// peak memory, and where the generator lists the steps.
std::string StepMemoryLogPath(const std::string& log_dir);
std::string StepsFilePath(const std::string& log_dir);

}  // namespace fastcuda

// One nvcc call planned as a step graph: arguments, dryrun, graph, work dir.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "src/nvcc/nvcc_options.h"
#include "src/graph/step_graph.h"

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

}  // namespace fastcuda

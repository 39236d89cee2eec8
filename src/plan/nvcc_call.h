// One nvcc call planned as a step graph: arguments, dryrun, graph, work dir.
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "src/base/dryrun_runner.h"
#include "src/base/file_system.h"
#include "src/graph/step_graph.h"
#include "src/nvcc/nvcc_options.h"

namespace fastcuda {

/// The outcome of planning: a graph, or the reason nvcc must run itself.
struct NvccPlan {
  std::optional<StepGraph> graph;
  std::string fallback_reason;      ///< set when there is no graph
  std::string dryrun_other_output;  ///< what nvcc printed besides the commands (warnings)
};

/// Chooses the work directory of an nvcc call from its first output (absolute).
using WorkDirChooser = std::function<std::string(const std::string& absolute_output)>;

/// An nvcc call as a user makes it.
struct NvccCall {
  std::string nvcc;
  std::vector<std::string> args;
  std::string cwd;
  /// The call's environment: its NVCC_*_FLAGS are arguments too, `$VAR`s in
  /// the dryrun expand from it, its ToolchainEnvironment is set on every step.
  std::map<std::string, std::string> environment;
};

/// Plans `call`: scans the arguments, has `runner` run the dryrun and builds
/// the graph, its steps run through `launchers` in `modes`, in the work
/// directory that `work_dir_for` gives for the call's first output.
NvccPlan PlanNvccCall(const NvccCall& call, const WorkDirChooser& work_dir_for,
                      const StepLaunchers& launchers, const CompileModes& modes, const DryrunRunner& runner,
                      const FileSystem& fs);

/// The work directory for an output: `ROOT/BASENAME-HASH`, stable and
/// distinct for distinct absolute output paths. HASH is of the output's path
/// relative to ROOT, so that a build directory elsewhere (one that holds
/// ROOT and the outputs alike) gives the same names: the files' names, that
/// the host compile's preprocessed code names, are the same there, and a
/// cache that strips the build directory from them (sccache's basedirs) hits.
std::string WorkDirFor(const std::string& root, const std::string& absolute_output);

}  // namespace fastcuda

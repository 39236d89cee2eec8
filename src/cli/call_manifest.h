// The files Ninja needs to build one nvcc call's graph.
#pragma once

#include <string>

#include "ninja-gen/fragment.h"
#include "src/base/file_system.h"
#include "src/graph/step_graph.h"
#include "src/plan/graph_dir.h"

namespace fastcuda {

/// Writes the manifest of one call's graph into `log_dir`/build.ninja, with
/// its environment file and `steps.json`. `log_dir` is where Ninja keeps
/// its log (it is the manifest's `builddir` when Ninja runs elsewhere);
/// steps record their peak memory there, and the memory of earlier builds
/// sizes the memory pools for the budget and jobs of `limits`, which are
/// recorded there too (PlannedLimitsPath).
void WriteCallManifest(const StepGraph& graph, const FragmentOptions& options, const PoolDepths& pools,
                       const std::string& log_dir, const PlannedLimits& limits, WritableFileSystem& fs);

}  // namespace fastcuda

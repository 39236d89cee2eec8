// The first phase of a first build: weigh every TU's device code before its
// heavy steps run, so that Ninja ranks them by estimated time rather than by
// edge count (src/plan/first_build_estimate.h).
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "src/base/file_system.h"

namespace fastcuda {

/// Runs Ninja on the graph for `targets` (as Ninja names them); its status.
using RunNinjaFor = std::function<int(const std::vector<std::string>& targets)>;

/// Before a build of every TU of the graph in `dir` on `jobs` job slots (0:
/// one per core) whose manifest has no step times while Ninja's log has none
/// either (a fresh build directory), for the TUs whose whole-call cache
/// lookup (if they have one, and it ran) did not hit: appends to the log the
/// times that an earlier build of the same sources elsewhere measured
/// (RememberedRecords); where it remembers none of them and FirstPhasePays,
/// builds each TU's WeighedStepOf through `run_ninja` first; appends the
/// other steps' EstimateRecords, calls `regenerate` (which then finds step
/// times: HistoryArrived) and writes FirstPhasePath for the timeline.
/// Returns the regeneration's status, Ninja's when a signal stopped it, or 0:
/// a first phase that failed otherwise only costs the estimates, and the
/// build that follows reports the failure. FASTCUDA_FIRST_PHASE: `auto`
/// (the default), `on` (wherever there are two TUs or more) or `off`.
int RunFirstPhase(const std::string& dir, unsigned jobs, const RunNinjaFor& run_ninja,
                  const std::function<int()>& regenerate, WritableFileSystem& fs);

/// After a build of the graph in `dir`: remembers the times of the steps
/// that Ninja's log recorded since the last time in StepHistoryDir
/// (src/plan/step_history.h), rewriting the files of those steps' sources
/// alone (a no-op build costs two reads, an edit one TU's file).
void RememberBuild(const std::string& dir, WritableFileSystem& fs);

}  // namespace fastcuda

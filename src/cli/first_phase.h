// The first phase of a first build: weigh every TU's device code before its
// heavy steps run, so that Ninja ranks them by estimated time rather than by
// edge count (src/plan/first_build_estimate.h).
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "src/base/command_io.h"

namespace fastcuda {

/// Runs Ninja on the graph for `targets` (as Ninja names them); its status.
using RunNinjaFor = std::function<int(const std::vector<std::string>& targets)>;

/// Before a build of every TU of the graph in `dir` on `jobs` job slots (0:
/// one per core) whose manifest has no step times while Ninja's log has none
/// either (a fresh build directory), for the TUs whose whole-call cache
/// lookup (if they have one, and it ran) did not hit: appends to the log the
/// times that an earlier build of the same sources elsewhere measured
/// (RememberedRecords; their peaks into RememberedMemoryPath) and, for the
/// TUs it does not remember, MeanTuRecords; where it remembers none and
/// FirstPhasePays, builds each TU's WeighedStepOf through `run_ninja` and
/// appends EstimateRecords instead. Never a record of a step the log has one
/// of. Then calls `regenerate` (which finds step times: HistoryArrived) and
/// writes FirstPhasePath for the timeline. Returns the regeneration's
/// status, Ninja's when a signal stopped it, or 0: a first phase that failed
/// otherwise only costs the estimates, and the build that follows reports
/// the failure. FASTCUDA_FIRST_PHASE: `auto` (the default), `on` (a phase
/// wherever there are two TUs or more and none is remembered) or `off` (no
/// ranking at all, remembered times neither).
int RunFirstPhase(const std::string& dir, unsigned jobs, const RunNinjaFor& run_ninja,
                  const std::function<int()>& regenerate, const CommandIo& io);

/// After a build of the graph in `dir`: remembers the times and peaks of
/// the steps that ran since the last time (Ninja's log and step-memory.tsv
/// past the mark, StepHistoryMarkPath) in StepHistoryDir
/// (src/plan/step_history.h), rewriting the files of those steps' sources
/// alone (a no-op build reads Ninja's log and the mark, an edit rewrites one
/// TU's file). Steps that a cache gave are left out. Never throws.
void RememberBuild(const std::string& dir, const CommandIo& io);

/// Moves the mark past what the logs hold now: records that no build of
/// the graph wrote (`fastcuda ninja` appends its handovers to the log) are
/// not remembered.
void SkipRecordsOfNoBuild(const std::string& dir, const CommandIo& io);

}  // namespace fastcuda

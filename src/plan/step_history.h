// Step times remembered across build directories: a first build in a fresh
// build directory of sources built before (a second configuration, a
// removed build directory, a CI job that keeps its cache directory) is
// ranked by the times its steps took there instead of by estimates. Ranking
// only: no output is ever taken from here.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "src/base/ninja_log.h"
#include "src/plan/graph_dir.h"

namespace fastcuda {

/// A step's duration as last measured, and the day (since the epoch) it was.
struct RememberedTime {
  int64_t ms = 0;
  int64_t day = 0;
};

/// Remembered times by StepHistoryKey.
using StepHistory = std::map<std::string, RememberedTime>;

/// Where the history is: FASTCUDA_STEP_HISTORY (a file; `off`: none), else
/// `fastcuda/step-times.json` in $XDG_CACHE_HOME or ~/.cache; empty: none.
std::string StepHistoryPath();

/// A step's key: its TU's absolute source path and its output's file name,
/// which FastCuda names after the source and architecture alone, so that the
/// same step of another build directory has the same key.
std::string StepHistoryKey(const RecordedTu& tu, const RecordedStep& step);

/// The history file's text, and back (empty for a damaged or foreign file:
/// it only costs a first build its ranking).
std::string FormatStepHistory(const StepHistory& history);
StepHistory ParseStepHistory(std::string_view text);

/// True for a record of a step that ran: a first phase's estimates, and
/// the remembered times written like them, have start, mtime and hash 0.
bool IsMeasured(const NinjaLogRecord& record);

/// Adds to `history` the measured times (IsMeasured records of Ninja's log,
/// the latest of an output winning) of the steps of `tus`, measured on
/// `today`, and forgets what was not measured for kForgetAfterDays.
void RememberStepTimes(StepHistory& history, const std::vector<RecordedTu>& tus,
                       const std::vector<NinjaLogRecord>& log, int64_t today);
inline constexpr int64_t kForgetAfterDays = 60;

/// True when `history` has a time for every step of `tu` that writes a file.
bool Remembers(const StepHistory& history, const RecordedTu& tu);

/// Records of Ninja's log for the steps of `tu` that `history` has times
/// for, shaped as a first phase's estimates (start, mtime and hash 0), so
/// that the generation reads them as times but Ninja finds no command run.
std::vector<NinjaLogRecord> RememberedRecords(const StepHistory& history, const RecordedTu& tu);

/// Records for the steps of `unknown` (TUs added since the history was
/// written) at the mean time that `history` remembers for steps of the same
/// kind in `known`, or the kind's DefaultDuration where it remembers none:
/// shaped as RememberedRecords.
std::vector<NinjaLogRecord> MeanTuRecords(const StepHistory& history, const std::vector<RecordedTu>& known,
                                          const std::vector<RecordedTu>& unknown);

}  // namespace fastcuda

// The planning of a first build's first phase (src/cli/first_phase.h runs
// it): which TUs it ranks, whether it weighs them, what the step history
// remembers of them, and which records it appends to Ninja's log; and the
// mark up to which the history has read a graph's logs.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "src/base/file_system.h"
#include "src/base/ninja_log.h"
#include "src/plan/critical_path.h"
#include "src/plan/graph_dir.h"
#include "src/plan/step_history.h"

namespace fastcuda {

/// The graph's TUs when a first build should be ranked: a graph generated
/// without measured step times (NoHistoryPath; its caller regenerated first
/// if the log grew since), whose log does not hold a first phase's estimates
/// already, unless `mode` (FASTCUDA_FIRST_PHASE) says "off"; only the TUs
/// that the build needs (not those built on request) and whose lookup (if
/// any) did not hit. Throws std::runtime_error where steps.json cannot be
/// read (torn, or an older FastCuda's, read before regenerating).
std::vector<RecordedTu> TusToRank(const std::string& dir, const std::string& ninja_log_path,
                                  const std::string& mode, const FileSystem& fs);

/// Whether the first phase weighs `tus`: where it pays (FirstPhasePays) or
/// `mode` (FASTCUDA_FIRST_PHASE) says "on", and none of the graph's TUs has
/// remembered times (`remembered`). Where some have, a phase would hold
/// them all back for the few that have not (a file just added): those few
/// are estimated as the mean remembered TU (MeanTuRecords).
bool PhaseWeighs(const std::vector<RecordedTu>& tus, size_t remembered, unsigned jobs,
                 const std::string& mode);

/// A first build's TUs: those whose steps the history remembers (with
/// their times, and their RememberedRecords) and the others.
struct TusByHistory {
  std::vector<std::pair<RecordedTu, SourceTimes>> known;
  std::vector<RecordedTu> unknown;
  std::vector<NinjaLogRecord> remembered;
};

/// `tus` split by whether the history in `history_dir` remembers them.
TusByHistory SplitByHistory(std::vector<RecordedTu> tus, const std::string& history_dir,
                            const WritableFileSystem& fs);

/// The records a first build of `split` appends to Ninja's log, whose
/// records are `in_log`: the remembered times and, for the TUs not
/// remembered, MeanTuRecords, or EstimateRecords by `weights` where none
/// is; never one of a step this build directory ran already (a record
/// without its command's hash would make Ninja run it again).
std::vector<NinjaLogRecord> RecordsToAppend(const TusByHistory& split,
                                            const std::optional<std::vector<int64_t>>& weights,
                                            const StepDurations& in_log);

/// Where a log that other programs append to ends: its size and a hash of
/// its last bytes, to tell a log appended to since from one rewritten.
std::string LogEnd(std::string_view text);

/// What was appended to `text` since it ended at `end` (LogEnd): all of it
/// where it was rewritten since (Ninja recompacts its log) or `end` is none.
std::string_view TextSince(std::string_view text, const std::string& end);

/// The history's mark in the graph in `dir`: LogEnd its Ninja log and of its
/// step-memory.tsv.
struct HistoryMark {
  std::string log_end, memory_end;
};

/// The mark of the graph in `dir` (StepHistoryMarkPath), and the mark of
/// `log` and `memory` written there.
HistoryMark ReadHistoryMark(const std::string& dir, const FileSystem& fs);
void WriteHistoryMark(const std::string& dir, std::string_view log, std::string_view memory,
                      WritableFileSystem& fs);

}  // namespace fastcuda

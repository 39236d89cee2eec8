// Step times remembered across build directories: a first build in a fresh
// build directory of sources built before (a second configuration, a
// removed build directory, a CI job that keeps its cache directory) is
// ranked by the times its steps took there instead of by estimates. Ranking
// only: no output is ever taken from here. One small file per source, so
// that a build rewrites only the files of the TUs whose steps ran.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "src/base/file_system.h"
#include "src/base/ninja_log.h"
#include "src/plan/graph_dir.h"

namespace fastcuda {

/// Where the history is: FASTCUDA_STEP_HISTORY (a directory; `off`: none),
/// else `fastcuda/step-times` in $XDG_CACHE_HOME or ~/.cache; empty: none.
std::string StepHistoryDir();

/// The times and peak memory of one source's steps, by the file name of
/// each step's first output (FastCuda names it after the source and the
/// architecture, never after the build directory).
struct SourceTimes {
  std::string source_path;  ///< absolute
  std::map<std::string, int64_t> ms;
  std::map<std::string, int64_t> peak_kib = {};
};

/// The file in `dir` that holds `source_path`'s SourceTimes.
std::string SourceTimesPath(const std::string& dir, const std::string& source_path);

/// The file's text, and back: nullopt for a damaged or foreign file, or one
/// of another source (a hash collision), which only costs a first build its
/// ranking.
std::string FormatSourceTimes(const SourceTimes& times);
std::optional<SourceTimes> ParseSourceTimes(std::string_view text, const std::string& source_path);

/// True for a record of a step that ran: a first phase's estimates, and
/// the remembered times written like them, have start, mtime and hash 0.
bool IsMeasured(const NinjaLogRecord& record);

/// The measured times (IsMeasured records of `log`, the latest of an output
/// winning) and the peaks (`peaks`, of step-memory.tsv) of the steps of `tu`
/// into `times`; false where none changed.
bool RememberStepTimes(SourceTimes& times, const RecordedTu& tu, const std::vector<NinjaLogRecord>& log,
                       const StepMemory& peaks);

/// True when `times` holds every step of `tu` that writes a file.
bool Remembers(const SourceTimes& times, const RecordedTu& tu);

/// Records of Ninja's log for the steps of `tu` at the times `times` holds,
/// shaped as a first phase's estimates (start, mtime and hash 0), so that the
/// generation reads them as times but Ninja finds no command run.
std::vector<NinjaLogRecord> RememberedRecords(const SourceTimes& times, const RecordedTu& tu);

/// Lines of step-memory.tsv for the steps of `tu` whose peaks `times`
/// holds and `peaks` (the build directory's own) does not, so that a first
/// build's memory budget weighs them as measured (CPU time 0: none ran).
std::string RememberedMemoryLines(const SourceTimes& times, const RecordedTu& tu, const StepMemory& peaks);

/// Records for the steps of `unknown` (TUs added since the history was
/// written) at the mean time that the `known` TUs (each with its times)
/// took for steps of the same kind, or the kind's DefaultDuration where
/// none did: shaped as RememberedRecords.
std::vector<NinjaLogRecord> MeanTuRecords(const std::vector<std::pair<RecordedTu, SourceTimes>>& known,
                                          const std::vector<RecordedTu>& unknown);

/// Removes the files of `dir` that no build wrote for kForgetAfter before
/// `now` (sources no longer built, or moved).
void ForgetOldStepTimes(const std::string& dir, std::filesystem::file_time_type now, WritableFileSystem& fs);
inline constexpr std::chrono::hours kForgetAfter{24 * 60};

}  // namespace fastcuda

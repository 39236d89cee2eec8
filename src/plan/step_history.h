// Step times remembered across build directories: a first build in a fresh
// build directory of sources built before (a second configuration, a
// removed build directory, a CI job that keeps its cache directory) is
// ranked, and its memory budget planned, by what its steps took there
// instead of by estimates. Ranking and planning only: no output is ever
// taken from here. One small file per source, so that a build rewrites only
// the files of the TUs whose steps ran.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "src/base/file_system.h"
#include "src/base/ninja_log.h"
#include "src/plan/graph_dir.h"

namespace fastcuda {

/// Where the history is: FASTCUDA_STEP_HISTORY (an absolute directory; `off`
/// or a relative path: none, as launchers run in many directories), else
/// `fastcuda/step-times` in $XDG_CACHE_HOME or ~/.cache, as `environment`
/// says; empty: none.
std::string StepHistoryDir(const std::map<std::string, std::string>& environment);

/// The times (ms) and peak memory (KiB) of one source's steps, by the file
/// name of each step's first output (FastCuda names it after the source and
/// the architecture, never after the build directory), and the day (since
/// the epoch) a build last wrote them.
struct SourceTimes {
  std::string source_path;  ///< absolute
  std::map<std::string, int64_t> ms = {};
  std::map<std::string, int64_t> peak_kib = {};
  int64_t day = 0;
};

/// The file's text, and back: nullopt for a damaged or foreign file, or one
/// of another source (a hash collision), which only costs a first build its
/// ranking.
std::string FormatSourceTimes(const SourceTimes& times);
std::optional<SourceTimes> ParseSourceTimes(std::string_view text, const std::string& source_path);

/// The SourceTimes of `source_path` where the history has none of it but has
/// the same source at another path (a clone elsewhere, a CI job whose
/// workspace moved): of `files` (the history directory's, as FilesIn lists
/// them), the SourceTimes of a source with the same file name whose path
/// ends in the most of the same directories, at least its parent; of those,
/// the latest written. Nullopt where none does.
std::optional<SourceTimes> TimesOfMovedSource(const std::string& source_path,
                                              const std::vector<std::string>& files, const FileSystem& fs);

/// True for a record of a step that ran: a first phase's estimates, and
/// the remembered times written like them, have start, mtime and hash 0.
bool IsMeasured(const NinjaLogRecord& record);

/// The duration of each output's latest IsMeasured record in `log`, but for
/// the outputs whose step a cache gave (`cache_outcomes` "hit", from
/// step-memory.tsv): a copy's time is not the step's.
std::map<std::string, int64_t> MeasuredTimes(const std::vector<NinjaLogRecord>& log,
                                             const std::map<std::string, std::string>& cache_outcomes);

/// The times (`measured`, by output) and peaks (`peaks`, of step-memory.tsv)
/// of the steps of `tu` into `times`, written on `today`; false where neither
/// they nor the day changed.
bool RememberStepTimes(SourceTimes& times, const RecordedTu& tu,
                       const std::map<std::string, int64_t>& measured, const StepMemory& peaks,
                       int64_t today);

/// True when `times` holds every step of `tu` that writes a file, but for
/// those FastCuda runs itself (RunByFastcuda), which take no time to rank by.
bool Remembers(const SourceTimes& times, const RecordedTu& tu);

/// Records of Ninja's log for the steps of `tu` at the times `times` holds,
/// shaped as a first phase's estimates (start, mtime and hash 0), so that the
/// generation reads them as times but Ninja finds no command run.
std::vector<NinjaLogRecord> RememberedRecords(const SourceTimes& times, const RecordedTu& tu);

/// Lines of RememberedMemoryPath for the steps of `tu` whose peaks `times`
/// holds (StepMemoryLine, CPU time 0).
std::string RememberedMemoryLines(const SourceTimes& times, const RecordedTu& tu);

/// Records for the steps of `unknown` (TUs added since the history was
/// written) at the mean time that the `known` TUs (each with its times)
/// took for steps of the same kind, or the kind's DefaultDuration where
/// none did: shaped as RememberedRecords.
std::vector<NinjaLogRecord> MeanTuRecords(const std::vector<std::pair<RecordedTu, SourceTimes>>& known,
                                          const std::vector<RecordedTu>& unknown);

/// Once a day (a `forgotten-on` file in `dir` says when it last did):
/// removes the SourceTimes files of `dir` that no build wrote for
/// kForgetAfterDays (sources no longer built, or moved). Only files named as
/// SourceTimesPath names them, and by the day written in them, not their
/// mtime (a restored cache may reset it).
void ForgetOldStepTimes(const std::string& dir, int64_t today, WritableFileSystem& fs);
inline constexpr int64_t kForgetAfterDays = 60;

}  // namespace fastcuda

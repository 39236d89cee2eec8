// The last build of a graph as a timeline: which step ran when, for how
// long, with how much memory. What `fastcuda trace`, `report`, `table` and
// `graph` show.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "src/plan/first_build_estimate.h"
#include "src/plan/graph_dir.h"

namespace fastcuda {

/// One step that ran in the last build.
struct TimedStep {
  size_t tu = 0;     ///< index into Timeline::tus
  size_t index = 0;  ///< index within the TU
  int64_t start_ms = 0;
  int64_t end_ms = 0;
  int64_t peak_kib = 0;       ///< 0 when not recorded
  int64_t output_bytes = -1;  ///< -1 when the output is gone
  std::string cache;          ///< "hit", "miss" or "here" where its launcher said (kStepCacheResultVariable)
};

/// The last build.
struct Timeline {
  std::vector<RecordedTu> tus;
  std::vector<TimedStep> steps;  ///< by start time
  int64_t wall_ms = 0;
  /// The whole-call cache's lookups (CACHE_LOOKUP steps) and how many hit,
  /// as their result files say now.
  size_t cache_lookups = 0;
  size_t cache_hits = 0;
  /// The memory budget and job count the graph was planned with, where its
  /// directory records them.
  std::optional<PlannedLimits> planned;

  const RecordedStep& Step(const TimedStep& timed) const { return tus[timed.tu].steps[timed.index]; }
  /// "CICC compute_90 foo.cu"
  std::string Name(const TimedStep& timed) const;
};

/// Joins the recorded steps with the last build's records of `.ninja_log`
/// (the records after the last reset of Ninja's clock, or both phases of a
/// first build that `first_phase` describes) and the memory log.
/// `file_size` gives an output's size, or -1.
Timeline BuildTimeline(std::vector<RecordedTu> tus, std::string_view ninja_log, std::string_view memory_log,
                       const std::function<int64_t(const std::string&)>& file_size,
                       const std::optional<FirstPhase>& first_phase = std::nullopt);

/// The chain of steps (indexes into timeline.steps) that ended last,
/// followed back through the predecessor that finished latest each time.
std::vector<size_t> CriticalChain(const Timeline& timeline);

/// For each TU, the length (ms) of its longest chain of steps that ran,
/// from the steps' own durations.
std::vector<int64_t> LongestChainPerTu(const Timeline& timeline);

/// The job slot (0..) each step ran in: the lowest free one at its start.
std::vector<size_t> JobSlots(const Timeline& timeline);

}  // namespace fastcuda

// Step times for a first build, which has none measured: a short first phase
// runs every TU's first preprocessing, and what that preprocessed code holds
// ranks the TUs before their heavy steps run. The estimates go into
// Ninja's own log, as records of the steps that have not run, where the
// generation that follows (and a Ninja that weights edges by the log's
// durations) reads them like measured times.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "src/base/ninja_log.h"
#include "src/plan/critical_path.h"
#include "src/plan/graph_dir.h"

namespace fastcuda {

/// How much device code a TU's preprocessed device source asks cicc and
/// ptxas to compile: the kernels it declares (`__global__`, which the
/// preprocessor turns into `__attribute__((global))`) and the launches it
/// holds (`<<<`): on the bench corpora kernel counts rank TUs by their
/// measured chains better than sizes do (bench/RESULTS.md, "What ranks a
/// first build's TUs").
int64_t DeviceCodeWeight(std::string_view preprocessed);

/// Whether weighing pays for `tus` on `jobs` job slots: from two TUs to two
/// a job slot, where a few heavy chains set the bound; beyond, where the
/// build is bound by its total work and the phase's fixed cost (its last
/// round's idle slots, the regeneration) counts, only for TUs of two or more
/// cicc each on average whose steps come to kLongFirstBuildMs a slot by
/// their kinds' DefaultDuration: there Ninja's own ranking still ends a long
/// build with heavy TUs started late. Not for one architecture, however many
/// TUs: default times cannot tell many light TUs from a long build. The
/// measurements behind each bound are in bench/RESULTS.md, "The first phase
/// against Ninja's ranking" and "Long builds of many TUs".
bool FirstPhasePays(const std::vector<RecordedTu>& tus, unsigned jobs);
/// Work a job slot, by DefaultDuration, from which a first build of more
/// than two TUs a slot is long enough for its first phase to pay.
inline constexpr int64_t kLongFirstBuildMs = 30000;

/// The step of `tu` whose output the first phase builds and weighs: the
/// preprocessing that heads its longest chain, so that the phase delays that
/// chain only by the wait for the other TUs' phase steps. Where cicc waits for
/// cudafe++ (nvcc's module ids) that is the host preprocessing, else the
/// first device preprocessing; both hold the same kernels and launches. None
/// for a TU without device code. (A phase of device preprocessing delayed
/// the longest chain, which starts at the host preprocessing, by the whole
/// phase: bench/RESULTS.md, "A first build taken apart".)
std::optional<size_t> WeighedStepOf(const RecordedTu& tu);

/// Records of estimated times for the steps of `tus` that write a file and
/// that `known` has no time for, `weights[t]` being TU t's DeviceCodeWeight (or -1 where unknown): a
/// step's DefaultDuration scaled by its TU's weight against the mean weight
/// (device steps in full, host steps by half, as host code does not grow
/// with kernels), within 1/10 to 10 times. Start 0, mtime 0 and hash 0: an
/// estimate matches no command, so Ninja runs the step as it would without it.
std::vector<NinjaLogRecord> EstimateRecords(const std::vector<RecordedTu>& tus,
                                            const std::vector<int64_t>& weights, const StepDurations& known);

/// Where a first build's estimates lie in Ninja's log (byte offsets): the
/// first phase's records end where they begin, the build's records begin
/// where they end; and when the build's Ninja started, in ms after the
/// first phase's. So the timeline shows both phases as one build.
/// `first-phase` in the graph directory.
struct FirstPhase {
  size_t estimates_begin = 0;
  size_t build_begin = 0;
  int64_t build_start_ms = 0;
};
std::string FormatFirstPhase(const FirstPhase& phase);
std::optional<FirstPhase> ParseFirstPhase(std::string_view text);

/// True when `ninja_log` still holds the estimates where `phase` says (Ninja
/// has not rewritten the log since).
bool EstimatesInPlace(const FirstPhase& phase, std::string_view ninja_log);

/// True when nothing came after the estimates in `ninja_log`: the manifest
/// generated from it has estimated times, not measured ones.
bool OnlyEstimated(const std::optional<FirstPhase>& phase, std::string_view ninja_log);

}  // namespace fastcuda

// Views of a build timeline: a Chrome/Perfetto trace, an SVG picture, a
// report, a CSV table and a DOT graph.
#pragma once

#include <string>

#include "src/views/build_timeline.h"

namespace fastcuda {

/// Chrome trace event JSON: one complete event per step, a process per TU
/// (named by its source), peak memory and output size in the arguments.
std::string TraceJson(const Timeline& timeline);

/// A self-contained SVG: one lane per job slot, a colour per step kind, the
/// critical chain outlined, a time axis and a legend.
std::string TimelineSvg(const Timeline& timeline);

/// "Why is my CUDA build slow": parallelism against the lower bound for
/// `jobs` jobs (0: the most that ran at once), time per step kind, the
/// longest chains and the TUs to split first.
std::string BuildReport(const Timeline& timeline, unsigned jobs);

/// CSV, one row per step that ran (the seed fast_nvcc's --table).
std::string StepTableCsv(const Timeline& timeline);

/// DOT of every recorded step and its dependencies, a cluster per TU (the
/// seed fast_nvcc's --graph).
std::string StepGraphDot(const std::vector<RecordedTu>& tus);

}  // namespace fastcuda

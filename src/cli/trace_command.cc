// `fastcuda trace|report|table|graph DIR`: looking at the last build of a
// graph directory (a `fastcuda gen`/`build` output, or a launcher work dir).
#include <filesystem>
#include <iostream>

#include "src/base/file_system.h"
#include "src/base/ninja_jobs.h"
#include "src/cli/commands.h"
#include "src/graph/whole_call_cache.h"
#include "src/nvcc/step.h"
#include "src/plan/first_build_estimate.h"
#include "src/plan/graph_dir.h"
#include "src/plan/intermediate_stubs.h"
#include "src/views/build_views.h"

namespace fastcuda {
namespace {

/// The options of the four views.
struct ViewOptions {
  std::string dir;
  std::string output;  ///< -o; empty: stdout
  bool svg = false;
  unsigned jobs = 0;
};

ViewOptions ParseViewOptions(const std::string& view, const std::vector<std::string>& args) {
  ViewOptions options;
  for (size_t i = 0; i < args.size(); ++i) {
    bool has_value = i + 1 < args.size();
    if (args[i] == "-o" && has_value) options.output = args[++i];
    else if (args[i] == "-j" && has_value) options.jobs = ParseJobCount(args[++i], "-j");
    else if (args[i] == "--svg" && view == "trace") options.svg = true;
    else if (options.dir.empty() && args[i][0] != '-') options.dir = args[i];
    else throw std::invalid_argument("usage: fastcuda " + view + " [--svg] DIR [-o FILE] [-j N]");
  }
  if (options.dir.empty()) throw std::invalid_argument("usage: fastcuda " + view + " DIR");
  return options;
}

Timeline LoadTimeline(const std::string& dir, const WritableFileSystem& fs) {
  std::optional<std::string> steps = fs.Read(StepsFilePath(dir));
  if (!steps) throw std::runtime_error(dir + " holds no steps.json: not a FastCuda graph directory");
  const std::string ninja_log = GraphNinjaLogPath(dir, fs);
  // The log's paths start where Ninja ran: the graph's directory, or for
  // `fastcuda ninja` the generator's (where its log is, unless `builddir` moves it).
  const std::filesystem::path ninja_dir = std::filesystem::path(ninja_log).parent_path();
  Timeline timeline = BuildTimeline(
      ParseStepsFile(*steps), fs.Read(ninja_log).value_or(""), fs.Read(StepMemoryLogPath(dir)).value_or(""),
      [&](const std::string& path) {
        std::optional<uintmax_t> size = BodySize(fs, (ninja_dir / path).string());
        return size ? static_cast<int64_t>(*size) : int64_t{-1};
      },
      ParseFirstPhase(fs.Read(FirstPhasePath(dir)).value_or("")));
  timeline.planned = ParsePlannedLimits(fs.Read(PlannedLimitsPath(dir)).value_or(""));
  for (const RecordedTu& tu : timeline.tus) {
    for (const RecordedStep& step : tu.steps) {
      if (step.kind != StepKindName(StepKind::kCacheLookup)) continue;
      ++timeline.cache_lookups;
      timeline.cache_hits += ReadsCacheHit(fs, (ninja_dir / step.output).string());
    }
  }
  return timeline;
}

void Emit(const ViewOptions& options, const std::string& text, WritableFileSystem& fs) {
  if (options.output.empty()) {
    std::cout << text;
    return;
  }
  fs.Write(options.output, text);
}

}  // namespace

int ViewMain(const std::string& view, const std::vector<std::string>& args, const CommandIo& io) {
  ViewOptions options = ParseViewOptions(view, args);
  if (view == "graph") {
    std::optional<std::string> steps = io.fs.Read(StepsFilePath(options.dir));
    if (!steps) throw std::runtime_error(options.dir + " holds no steps.json");
    Emit(options, StepGraphDot(ParseStepsFile(*steps)), io.fs);
    return 0;
  }
  Timeline timeline = LoadTimeline(options.dir, io.fs);
  if (view == "trace") Emit(options, options.svg ? TimelineSvg(timeline) : TraceJson(timeline), io.fs);
  else if (view == "report") Emit(options, BuildReport(timeline, options.jobs), io.fs);
  else Emit(options, StepTableCsv(timeline), io.fs);
  return 0;
}

}  // namespace fastcuda

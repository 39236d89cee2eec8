#include "src/cli/call_manifest.h"

#include "src/base/file_system.h"
#include "src/plan/graph_dir.h"
#include "src/plan/memory_budget.h"

namespace fastcuda {

void WriteCallManifest(const StepGraph& graph, const FragmentOptions& fragment, const PoolDepths& pools,
                       const std::string& log_dir, const PlannedLimits& limits, WritableFileSystem& fs) {
  FragmentOptions options = fragment;
  options.memory_log = StepMemoryLogPath(log_dir);
  options.temp_root = StepTempRoot(log_dir);
  options.lock_dir = StepLocksDir(log_dir);
  options.manifest = GlobalManifestPath(log_dir);
  auto ninja_path = [&](const StepGraph& g, const std::string& path) {
    return NinjaPath(g, options.ninja_cwd, path);
  };
  PlannedLimits planned = limits;
  const std::string text = PlanStepPeaks({graph}, ReadPlannedPeaks(log_dir, fs), planned).front();
  if (text.empty()) fs.Remove(StepPeaksPath(graph.work_dir));
  else WriteIfChanged(fs, StepPeaksPath(graph.work_dir), text);
  WriteIfChanged(fs, options.env_file, EnvironmentFileText(graph.environment));
  WriteIfChanged(fs, StepsFilePath(log_dir), StepsFileText({graph}, ninja_path));
  WriteIfChanged(fs, PlannedLimitsPath(log_dir), FormatPlannedLimits(planned));
  std::string builddir = options.ninja_cwd == log_dir ? "" : log_dir;
  WriteIfChanged(fs, GlobalManifestPath(log_dir), SingleGraphManifest(graph, options, pools, builddir));
}

}  // namespace fastcuda

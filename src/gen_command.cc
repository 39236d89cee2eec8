// `fastcuda gen --out DIR -- NVCC ARGS...`: the Ninja manifest of one nvcc call.
#include <filesystem>
#include <iostream>

#include "ninja-gen/fragment.h"
#include "src/commands.h"
#include "src/file_system.h"
#include "src/nvcc_call.h"
#include "src/process.h"

namespace fastcuda {

int GenMain(const std::vector<std::string>& args) {
  std::string out_dir, pools_text;
  size_t i = 0;
  for (; i < args.size() && args[i] != "--"; ++i) {
    if (args[i] == "--out" && i + 1 < args.size()) out_dir = args[++i];
    else if (args[i] == "--pools" && i + 1 < args.size()) pools_text = args[++i];
    else throw std::invalid_argument("unknown gen option " + args[i]);
  }
  if (out_dir.empty() || i + 2 > args.size()) {
    throw std::invalid_argument("usage: fastcuda gen --out DIR [--pools KIND=N,...] -- NVCC ARGS...");
  }
  const std::string cwd = std::filesystem::current_path().string();
  const std::string root = std::filesystem::absolute(out_dir).lexically_normal().string();
  std::vector<std::string> nvcc_args(args.begin() + i + 2, args.end());
  NvccPlan plan = PlanNvccCall(args[i + 1], nvcc_args, cwd, [&](const std::string& output) {
    return WorkDirFor(root + "/tu", output);
  });
  if (!plan.graph) {
    Complain("cannot split this nvcc call: " + plan.fallback_reason);
    return 2;
  }
  std::cerr << plan.dryrun_other_output;
  const StepGraph& graph = *plan.graph;
  FragmentOptions options{SelfExecutable(), graph.work_dir + "/nvcc.env", root, ""};
  WriteFileIfChanged(options.env_file, EnvironmentFileText(graph));
  WriteFileIfChanged(root + "/build.ninja",
                     SingleGraphManifest(graph, options, ParsePoolDepths(pools_text), ""));
  return 0;
}

}  // namespace fastcuda

// fastcuda's command line: sub-commands, or the nvcc launcher.
#include <iostream>
#include <string>
#include <vector>

#include "fastcuda_commit.h"
#include "src/cli/commands.h"
#include "src/base/process.h"

namespace fastcuda {

void Complain(const std::string& message) { std::cerr << "fastcuda: " << message << std::endl; }

namespace {

constexpr const char* kUsage = R"(usage:
  fastcuda [--graph DIR] [LAUNCHER...] NVCC ARGS...
                                          compile like NVCC ARGS..., sub-steps in parallel;
                                          LAUNCHER (ccache...) runs the host compile
                                          (sccache: also cicc and ptxas);
                                          DIR: a global graph that may have built it already
  fastcuda gen --out DIR -- NVCC ARGS...  write DIR/build.ninja for one nvcc call
  fastcuda gen --compdb FILE --out DIR    one graph for every nvcc call of a compile database
  fastcuda build --compdb FILE --out DIR [-j N]
                                          generate when needed, then build with Ninja
  fastcuda trace [--svg] DIR [-o FILE]    the last build: Chrome/Perfetto JSON, or an SVG timeline
  fastcuda report DIR [-j N]              why the build took as long as it did
  fastcuda table DIR [-o FILE]            CSV of step times, output sizes, peak memory
  fastcuda graph DIR [-o FILE]            DOT of the step graph
  fastcuda --version                      the version and the commit it was built from
  (DIR: a gen/build --out directory, or a launcher work dir OBJDIR/.fastcuda/OBJ)
environment: FASTCUDA_JOBS, FASTCUDA_NINJA, FASTCUDA_POOLS (e.g. cicc=4,ptxas=8),
             FASTCUDA_VERBOSE=1 (say why nvcc runs itself), FASTCUDA_MEMORY_BUDGET,
             FASTCUDA_MODULE_ID=nvcc|own, FASTCUDA_SPLIT_COMPILE=off|auto|N,
             FASTCUDA_EARLY_HOST=on|off (the host compile does not wait for the device code),
             FASTCUDA_HOST_LAUNCHER (runs the host compiles: ccache, distcc...),
             FASTCUDA_DEVICE_LAUNCHER (runs cicc, ptxas, fatbinary: sccache, a remote runner)
)";

int Dispatch(const std::vector<std::string>& args) {
  if (args.empty() || args[0] == "--help" || args[0] == "-h") {
    std::cout << kUsage;
    return args.empty() ? 2 : 0;
  }
  if (args[0] == "--version") {
    std::cout << "fastcuda " << FASTCUDA_VERSION << " (commit " << FASTCUDA_COMMIT << ")\n";
    return 0;
  }
  std::vector<std::string> rest(args.begin() + 1, args.end());
  if (args[0] == "gen") return GenMain(rest);
  if (args[0] == "build") return BuildMain(rest);
  for (const char* view : {"trace", "report", "table", "graph"}) {
    if (args[0] == view) return ViewMain(view, rest);
  }
  if (args[0] == "step") return StepMain(rest);
  if (args[0] == "merge-depfiles") return MergeDepfilesMain(rest);
  if (args[0] == "write-text") return WriteTextMain(rest);
  if (args[0] == "write-fatbin-placeholder") return WriteFatbinPlaceholderMain(rest);
  return LauncherMain(args);
}

}  // namespace
}  // namespace fastcuda

int main(int argc, char** argv) {
  fastcuda::CloseInheritedDescriptor();
  try {
    return fastcuda::Dispatch(std::vector<std::string>(argv + 1, argv + argc));
  } catch (const std::exception& error) {
    fastcuda::Complain(error.what());
    return 2;
  }
}

// libFuzzer target: any text as an nvcc dryrun transcript, then as a step
// graph. Only the documented errors may come out; nothing may crash or leak.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "src/graph/step_graph.h"
#include "src/nvcc/transcript.h"

namespace {

/// A disk where every path ending in ".cu" or ".o" exists.
class SourcesExist : public fastcuda::FileSystem {
 public:
  bool IsFile(const std::string& path) const override {
    return path.ends_with(".cu") || path.ends_with(".o");
  }
  std::optional<std::string> Read(const std::string&) const override { return std::nullopt; }
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  try {
    fastcuda::Transcript transcript =
        fastcuda::ParseTranscript(text, [](std::string_view name) -> std::optional<std::string> {
          if (name == "HOME") return "/home/fuzz";
          return std::nullopt;
        });
    fastcuda::StepGraphOptions options;
    options.cwd = "/cwd";
    options.work_dir = "/build/work";
    options.keep_depfiles = true;
    fastcuda::BuildStepGraph(transcript, options, SourcesExist());
  } catch (const fastcuda::ShellSyntaxError&) {
  } catch (const fastcuda::UnsupportedTranscript&) {
  }
  return 0;
}

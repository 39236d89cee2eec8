#include "src/graph/work_dir_commands.h"

#include <algorithm>
#include <set>

#include "src/base/text.h"
#include "src/graph/launchers.h"
#include "src/nvcc/ptx_line_table.h"

namespace fastcuda {
namespace {

/// Whether `step` reads and writes its TU's work files alone: cicc, ptxas,
/// fatbinary, and cudafe++ where a remote runs it (elsewhere it keeps the
/// paths nvcc gives it, which sccache's entries of `sccache nvcc` key on).
bool ReadsOnlyWorkFiles(const GraphStep& step) {
  return step.kind == StepKind::kCicc || step.kind == StepKind::kPtxas || step.kind == StepKind::kFatbinary ||
         (step.kind == StepKind::kCudafe && RunsRemotely(step.argv));
}

/// True if `step` is a cicc that writes LTO-IR (`-lto`): NVVM records the
/// directory cicc runs in there, even without line information.
bool WritesLtoIr(const GraphStep& step) {
  return step.kind == StepKind::kCicc &&
         std::find(step.argv.begin(), step.argv.end(), "-lto") != step.argv.end();
}

/// True if `path` is relative and has a directory: one the TU's directory
/// would resolve.
bool IsRelativeWithDir(const std::string& path) {
  return path.find('/') != std::string::npos && !path.starts_with('/');
}

/// IsRelativeWithDir for `word`, or the value after its last `=`.
bool NamesRelativePath(const std::string& word) {
  return IsRelativeWithDir(word.substr(word.rfind('=') + 1));
}

/// `paths` with every `WORK_DIR/` left out: as a step that runs in the work
/// dir names them.
std::vector<std::string> NamesInWorkDir(const std::vector<std::string>& paths, const std::string& work_dir) {
  std::vector<std::string> names;
  for (const std::string& path : paths) names.push_back(ReplaceAll(path, work_dir + "/", ""));
  return names;
}

}  // namespace

std::vector<std::string> InputsForLauncher(const GraphStep& step, const std::string& work_dir,
                                           bool in_work_dir) {
  if (step.launcher_words == 0) return {};
  if (CachesHere(step.argv)) return step.inputs;
  if (!ReadsOnlyWorkFiles(step)) return {};
  return in_work_dir ? NamesInWorkDir(step.inputs, work_dir) : step.inputs;
}

std::optional<std::vector<std::string>> CommandInWorkDir(const GraphStep& step, const std::string& work_dir) {
  // Line information names the directory the tool runs in: cicc makes the
  // file names the preprocessor saw (relative ones too: `-Iinc`) absolute
  // from it, and -G records it itself; so does LTO-IR.
  if (!ReadsOnlyWorkFiles(step) || work_dir.empty() || WritesLineInformation(step.argv) || WritesLtoIr(step))
    return std::nullopt;
  auto in_work_dir = [&](const std::string& path) { return path.starts_with(work_dir + "/"); };
  if (!std::all_of(step.inputs.begin(), step.inputs.end(), in_work_dir) ||
      !std::all_of(step.outputs.begin(), step.outputs.end(), in_work_dir)) {
    return std::nullopt;  // it writes the user's own file (-cubin, -fatbin), or reads one
  }
  std::vector<std::string> argv = NamesInWorkDir(step.argv, work_dir);
  // Of the launcher, only its program is a path: its options may be a URL.
  auto command = argv.begin() + std::min(step.launcher_words, argv.size());
  if ((command != argv.begin() && IsRelativeWithDir(argv.front())) ||
      std::any_of(command, argv.end(), NamesRelativePath)) {
    return std::nullopt;
  }
  return argv;
}

}  // namespace fastcuda

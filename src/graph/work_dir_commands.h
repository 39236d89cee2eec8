// Device steps that run in their TU's work directory and name its files
// bare, so that their commands are the same whichever directory the build is
// in: a cache keyed by the command (sccache on cicc) hits in another build
// directory of the same sources, and a remote executor gets relative paths.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "src/graph/step_graph.h"

namespace fastcuda {

/// `step`'s command with every `WORK_DIR/` left out, where the step may run
/// in `work_dir`: cicc, ptxas and fatbinary whose inputs and outputs are all
/// the work directory's (not the `-cubin` or `-fatbin` output the user asked
/// for), and whose command then names no path relative to the TU's directory
/// (a word with a `/` that is not absolute; of the launcher's words, only its
/// program). Otherwise nothing: the step runs in the TU's directory as nvcc
/// would run it.
std::optional<std::vector<std::string>> CommandInWorkDir(const GraphStep& step, const std::string& work_dir);

/// `paths` with every `WORK_DIR/` left out: as a step that runs in the work
/// dir names them.
std::vector<std::string> NamesInWorkDir(const std::vector<std::string>& paths, const std::string& work_dir);

}  // namespace fastcuda

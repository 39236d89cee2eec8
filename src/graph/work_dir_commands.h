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
/// in `work_dir`: cicc, ptxas and fatbinary (and cudafe++ run remotely) whose inputs and outputs are all
/// the work directory's (not the `-cubin` or `-fatbin` output the user asked
/// for), and whose command then names no path relative to the TU's directory
/// (a word with a `/` that is not absolute; of the launcher's words, only its
/// program), and that write no line or debug information (-lineinfo, -G),
/// which records the directory they run in. Otherwise nothing: the step runs
/// in the TU's directory as nvcc would run it.
std::optional<std::vector<std::string>> CommandInWorkDir(const GraphStep& step, const std::string& work_dir);

/// The files `step` reads as its launcher is told them (FASTCUDA_STEP_INPUTS),
/// relative to where it runs: bare where it runs in the work dir, else as the
/// step names them (absolute, or relative to the TU's directory). None for a
/// step without a launcher, or other than cicc, ptxas, fatbinary, a remote
/// cudafe++ and a step cached here (CachesHere).
std::vector<std::string> InputsForLauncher(const GraphStep& step, const std::string& work_dir,
                                           bool in_work_dir);

}  // namespace fastcuda

// Intermediates kept between builds, and when they must go.
#pragma once

#include <string>
#include <vector>

#include "src/base/file_system.h"
#include "src/graph/step_graph.h"

namespace fastcuda {

/// The files of one TU that outlive a build: its objects, and the
/// intermediates kept so that the next build reruns only what changed.
struct KeptFiles {
  std::vector<std::string> objects;        ///< absolute: what nvcc was asked to write, less the depfile
  std::vector<std::string> intermediates;  ///< absolute: every other file the steps write
};

/// The kept files of a graph. The user's depfile is no object: Ninja
/// (`deps = gcc`) removes it after every build. A whole-call cache lookup's
/// dyndep file is neither.
KeptFiles KeptFilesOf(const StepGraph& graph);

/// The intermediates of every TU one of whose objects is missing, or was
/// made last by another command (`made_elsewhere`, absolute: plain ninja's
/// nvcc edge). Removing them before a build makes a removed object (by hand,
/// a clean, `--clean-first`) rebuild its whole TU from the source, as nvcc
/// would, instead of from intermediates that may predate the sources (a
/// source restored with an older mtime, a header that now shadows another).
std::vector<std::string> OrphanedIntermediates(const std::vector<KeptFiles>& tus, const FileSystem& fs,
                                               const std::vector<std::string>& made_elsewhere = {});

/// The intermediates that `before` (the last generation's) names and `now`
/// does not: written by the steps of another configuration (other
/// architectures, flags), they would come back, older than what they were
/// made from (a header that now shadows another), once it does.
std::vector<std::string> IntermediatesLeftBehind(const std::vector<KeptFiles>& before,
                                                 const std::vector<KeptFiles>& now);

/// The source that the preprocess steps of `graph` name on their command,
/// which their kept depfiles' shared header lists leave out (KeepDepfile);
/// "" where those stay whole: no step keeps one, or a whole-call cache's
/// tool reads them.
std::string KeptHeadersSource(const StepGraph& graph);

}  // namespace fastcuda

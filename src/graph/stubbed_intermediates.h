// The big intermediates that a build keeps as stubs: preprocessed text,
// cudafe++'s host source and fatbinary's `.fatbin.c`, each read by one step
// only.
#pragma once

#include <string>
#include <vector>

#include "src/graph/step_graph.h"

namespace fastcuda {

/// A file that one step writes and exactly one other step reads: once
/// that reader has succeeded, `fastcuda step` leaves a stub in its place
/// (FormatStub) and regenerates it from its producer's command, which the
/// stub records, when the reader must run again.
struct StubbedIntermediate {
  size_t producer = 0;
  size_t consumer = 0;
  std::string path;  ///< as the steps name it
};

/// The host and device preprocessed files, cudafe++'s host source and
/// fatbinary's `.fatbin.c` of `graph` that only one step reads, none of
/// them an output nvcc was asked for. Where another step reads one too (an
/// early host object), it stays whole.
std::vector<StubbedIntermediate> StubbedIntermediates(const StepGraph& graph);

/// Where the producer of a stubbed intermediate records its own command
/// while the file is whole: beside it, until the reader folds it into the
/// stub.
std::string RecipePath(const std::string& intermediate);

}  // namespace fastcuda

// The intermediates that a build keeps as stubs: preprocessed text,
// cudafe++'s host source, fatbinary's `.fatbin.c`, ptxas's cubins and
// cicc's PTX, each read by one step only.
#pragma once

#include <string>
#include <vector>

#include "src/graph/step_graph.h"

namespace fastcuda {

/// A file that one step writes and exactly one other step reads: once
/// that reader has succeeded, `fastcuda step` leaves a stub in its place
/// (intermediate_stubs.h) and regenerates it from its producer's command
/// when the reader must run again.
struct StubbedIntermediate {
  size_t producer = 0;
  size_t consumer = 0;
  std::string path;  ///< as the steps name it
};

/// The host and device preprocessed files, cudafe++'s host source,
/// fatbinary's `.fatbin.c`, the cubins and the PTX of `graph` that only one step
/// reads, none of them an output nvcc was asked for. Where another step reads one too (an
/// early host object), it stays whole.
std::vector<StubbedIntermediate> StubbedIntermediates(const StepGraph& graph);

/// The files that StubbedIntermediates considers and step `index` reads
/// without being their one reader (an early host object's steps): a build
/// of another configuration may have left a stub there, which the step
/// regenerates before it runs.
std::vector<std::string> InputsThatMayBeStubs(const StepGraph& graph, size_t index);

/// A file that a step writes and no step reads: its writer leaves it
/// empty right after it ran (StubUnreadOutputs).
struct UnreadIntermediate {
  size_t producer = 0;
  std::string path;  ///< as the steps name it
};

/// What cicc writes that no step reads (the `.cudafe1.gpu`, megabytes for
/// a TU that uses CUB) and nvcc was not asked for.
std::vector<UnreadIntermediate> UnreadIntermediates(const StepGraph& graph);

}  // namespace fastcuda

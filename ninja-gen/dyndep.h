// Ninja's dyndep files: inputs that an edge learns while the build runs.
#pragma once

#include <string>
#include <vector>

#include "src/plan/step_protocol.h"

namespace fastcuda {

/// One edge of a dyndep file: the edge (by its first output) and the
/// implicit inputs the file adds to it, as Ninja names them. Every edge whose
/// `dyndep` binding names the file must have one, or Ninja fails the build.
struct DyndepEdge {
  std::string output;
  std::vector<std::string> implicit_inputs;
};

/// The text of a dyndep file for `edges`.
std::string DyndepFileText(const std::vector<DyndepEdge>& edges);

/// The dyndep file of a whole-call cache lookup: each waiter with the
/// inputs it has after a hit, or after a miss.
std::string LookupDyndepText(const std::vector<LookupWaiter>& waiters, bool hit);

}  // namespace fastcuda

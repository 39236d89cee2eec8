// Ninja's dyndep files: inputs that an edge learns while the build runs.
#pragma once

#include <string>
#include <vector>

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

}  // namespace fastcuda

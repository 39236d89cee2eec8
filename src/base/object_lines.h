// What a graph run by make (CMake's Makefiles) prints: a line per object it
// built, in the words of CMake's own rule for that object, instead of
// Ninja's status of every sub-step, whose "[n/N]" lines would run between
// make's "[ x%]" lines with a count of their own.
#pragma once

#include <string>
#include <string_view>

namespace fastcuda {

/// The line for `object` (absolute): "Building CUDA object PATH", PATH
/// relative to `top` (the directory CMake's Makefiles name objects from, its
/// top build directory) as CMake prints it, or absolute where the object is
/// not under `top`. The description of the edge that writes the object.
std::string ObjectLine(const std::string& object, const std::string& top);

/// Follows the stdout of a Ninja that runs with kFollowedNinjaStatus over a
/// graph whose objects' edges are described by ObjectLine, and keeps of it
/// what a make user reads: the object lines, and what the steps printed,
/// under the description of a step that printed it ("PTXAS sm_80
/// /src/k.cu": ptxas's messages name no source); not Ninja's own messages
/// ("ninja: Entering directory", "ninja: no work to do.").
class ObjectLineFilter {
 public:
  /// Ninja's output as it came; returns what of its whole lines to print now.
  std::string Read(std::string_view text);
  /// Ninja has ended: what it printed after its last newline.
  std::string Finish();

 private:
  /// What of one line (without its newline) is printed.
  std::string Shown(std::string_view line);

  std::string partial_line_;
  /// The step whose status came last, while nothing it printed came.
  std::string unshown_step_;
};

}  // namespace fastcuda

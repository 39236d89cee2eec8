// The status lines of a Ninja whose progress FastCuda follows while it runs.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace fastcuda {

/// The NINJA_STATUS that FastCuda gives such a Ninja. Its output is a pipe,
/// so Ninja prints one line per edge as the edge ends, this text first:
/// edges finished, edges in the build, edges running.
inline constexpr const char* kFollowedNinjaStatus = "fastcuda-status %f %t %r: ";

/// One status line of that Ninja: where its build stands after an edge ended.
struct NinjaStatusLine {
  int finished = 0;         ///< edges finished
  int total = 0;            ///< edges the build runs
  int running = 0;          ///< edges running
  std::string description;  ///< the edge that ended, as its manifest describes it
};

/// The status of a line (without its newline) that such a Ninja printed;
/// nullopt for its other output (FAILED lines, its own messages).
std::optional<NinjaStatusLine> ParseNinjaStatusLine(std::string_view line);

}  // namespace fastcuda

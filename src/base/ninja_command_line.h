// What a Ninja command line asks for, as Ninja's own option parser reads it.
#pragma once

#include <string>
#include <vector>

namespace fastcuda {

/// A Ninja invocation, taken apart.
struct NinjaCommandLine {
  std::string dir;                       ///< -C: where it runs (relative to where it started); empty: there
  std::string manifest = "build.ninja";  ///< -f
  std::string tool;                      ///< -t: a tool, which builds nothing
  bool jobs_given = false;               ///< -j: the count is the caller's, not Ninja's default
  bool quiet = false;                    ///< --quiet: no status lines, only what the edges print
  std::vector<std::string> targets;      ///< in the order given; empty: the manifest's defaults
};

/// Reads `argv` (argv[0] is Ninja) as Ninja's getopt does: options may come
/// after targets, take their value attached (`-j4`, `-Cbuild`) or as the next
/// word, and `--` ends them. Options Ninja does not know are skipped.
NinjaCommandLine ParseNinjaCommandLine(const std::vector<std::string>& argv);

}  // namespace fastcuda

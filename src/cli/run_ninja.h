// How FastCuda runs Ninja, for `fastcuda build` and for the launcher alike.
#pragma once

#include <optional>
#include <set>
#include <string>
#include <vector>

#include "src/base/build_progress.h"
#include "src/base/command_io.h"
#include "src/base/process.h"

namespace fastcuda {

/// One run of Ninja: which manifest, from where, with how many jobs.
struct NinjaRun {
  std::string dir;       ///< -C: Ninja runs in DIR, on DIR/build.ninja; empty: `manifest` from `cwd`
  std::string manifest;  ///< -f, when `dir` is empty
  std::string cwd;       ///< empty: the current directory
  unsigned jobs = 0;     ///< as asked (-j, FASTCUDA_JOBS); 0: the jobserver's or the machine's
  bool quiet = false;    ///< no status lines: the steps' output is all there is to read
  bool capture = false;  ///< collect Ninja's output instead of letting it print
  /// With capture: follows Ninja's status lines as they come (Ninja runs
  /// with kFollowedNinjaStatus, even where `quiet`); its output is then
  /// what it printed besides them.
  BuildProgress* progress = nullptr;
  int lock_fd = -1;         ///< a lock that Ninja holds until its last step ends; -1: none
  bool keep_going = false;  ///< -k 0: build what does not depend on a failed step
  /// Ninja prints its status as a line per edge even at a terminal (as
  /// under TERM=dumb), where other programs write lines beside it.
  bool plain_status = false;
  /// Ninja's output as make's users read it (ObjectLineFilter, on a graph
  /// with object lines): Ninja runs with kFollowedNinjaStatus, its stdout
  /// filtered as it comes, its stderr printed when it ends.
  bool object_lines = false;
  std::vector<std::string> targets;  ///< empty: the manifest's defaults
};

/// Runs NinjaProgram() as `run` says, through `io`'s runner, in a process
/// group of its own (see ProcessSpec::own_process_group), with the job
/// arguments of NinjaJobArgumentsHere, and waits for it.
ProcessResult RunNinja(const NinjaRun& run, const CommandIo& io);

/// What a build of some targets needs, from the targets and the output of
/// `ninja -t inputs` for them (one path per line, as the manifest names
/// them: relative to `ninja_cwd` or absolute).
struct TargetNeeds {
  std::set<std::string> paths;          ///< absolute: the targets and every input they need
  std::set<std::string> caret_sources;  ///< absolute: the SOURCE of each `SOURCE^` target
};
TargetNeeds NeedsOfTargets(const std::vector<std::string>& targets, const std::string& ninja_cwd,
                           const std::string& inputs_output);

/// What `targets` of `manifest` need, as `ninja` (a Ninja program) run in
/// `cwd` says (`-t inputs`, run through `runner`); nullopt, with Ninja's
/// message in `error`, where it cannot say.
std::optional<TargetNeeds> AskTargetNeeds(const std::string& ninja, const std::string& cwd,
                                          const std::string& manifest,
                                          const std::vector<std::string>& targets, CommandRunner& runner,
                                          std::string& error);

}  // namespace fastcuda

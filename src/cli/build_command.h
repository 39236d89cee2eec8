// `fastcuda build`: what it decides before it runs Ninja.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "src/base/command_io.h"
#include "src/base/dryrun_runner.h"
#include "src/base/file_system.h"
#include "src/cli/gen_options.h"

namespace fastcuda {

/// True when the graph in `out_dir` lacks step times that Ninja's log
/// `ninja_log` now holds: the first build that finds the log grown
/// regenerates, so that the TU order and the priority ladder come from
/// measured times.
bool HistoryArrived(const std::string& out_dir, const std::string& ninja_log, const FileSystem& fs);

/// True when there is no manifest yet, when the database is newer than it
/// (as Ninja's regeneration edge would find, but before a launcher looks up
/// its command in the records), when Ninja's log has times that it lacks,
/// when `gen` would plan with other options or another toolchain
/// environment than it did (GenerationKey), or when `runner` identifies a
/// program it planned with otherwise (ChangedPrograms: a host compiler
/// switched behind the same path).
bool NeedsGeneration(const GenOptions& options, const std::map<std::string, std::string>& environment,
                     const WritableFileSystem& fs, const DryrunRunner& runner);

/// Removes the intermediates of every TU whose object is missing or made
/// elsewhere (see OrphanedIntermediates), as the graph directory's
/// `kept-files` lists them.
void RemoveOrphanedIntermediates(const std::string& out_dir, WritableFileSystem& fs,
                                 const std::vector<std::string>& made_elsewhere = {});

/// Generates with `options` (Generate) when NeedsGeneration says so; its
/// status, or 0.
int GenerateIfNeeded(const GenOptions& options, const CommandIo& io);

/// GenerateIfNeeded after the first phase wrote step times to rank the
/// graph by: the same TUs, so without a second report.
int RegenerateRanked(const GenOptions& options, const CommandIo& io);

/// What `fastcuda build ARGS` (parsed: `options`) does before it runs Ninja,
/// under the graph's lock: generates when NeedsGeneration says so, removes
/// orphaned intermediates and has the steps whose sources changed read them
/// again (RereadChangedSources). Returns the generation's failure status, or 0.
int PrepareGraph(const GenOptions& options, const CommandIo& io);

/// Where `launchers` run steps on FastCuda's remote client, has it start
/// its proxy in the background (`fastcuda-remote --start-proxy`, which
/// returns at once), so that the first remote steps do not wait for the
/// proxy's start. PrepareGraph does, first, so that the generation's time
/// covers the start.
void StartRemoteProxy(const StepLaunchers& launchers, CommandRunner& runner);

}  // namespace fastcuda

// `fastcuda gen --compdb`: planned from what it reads, written at the edge.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "ninja-gen/global_manifest.h"
#include "src/base/command_io.h"
#include "src/base/dryrun_runner.h"
#include "src/base/file_system.h"
#include "src/base/machine.h"
#include "src/cli/gen_options.h"
#include "src/graph/launchers.h"
#include "src/nvcc/compile_database.h"

namespace fastcuda {

/// What generation takes from the process and the machine, besides the
/// files it reads: asked at the edge (LoadGenerationContext).
struct GenerationContext {
  std::map<std::string, std::string> environment;
  std::string fastcuda;           ///< the tool the manifest runs
  bool priority_ladder = false;   ///< the Ninja that runs it ranks edges by path
  MachineLimits machine;          ///< the memory and CPUs its limits leave
  VersionProbe launcher_version;  ///< asked about launchers whose version matters
};

/// What generation writes: files by path (the top manifest always, the
/// others when changed), files to remove, and its report for stderr.
struct Generation {
  std::map<std::string, std::string> files;
  /// Written where the file holds none of what it may (DryRunDyndepFiles).
  std::map<std::string, DryRunFile> dry_run_files;
  std::vector<std::string> removed;
  /// Every depfile the graph keeps (absolute): a step's, and the TU's merged
  /// one handed to Ninja; the header lists in their dirs that none names go
  /// (UnnamedHeaderLists).
  std::vector<std::string> kept_depfiles;
  std::string report;
  /// Besides the entries: what a change of must plan anew (fastcuda, the nvcc
  /// binaries, the response files).
  std::vector<std::string> inputs;
  /// Every graph's object has Ninja record what its steps read (NinjaSeesEveryRead).
  bool ninja_sees_every_read = true;
};

/// The context of this process and machine, asked through `io`.
GenerationContext LoadGenerationContext(const GenOptions& options, const CommandIo& io);

/// Plans the database that `options` names, reading it, the dryrun cache,
/// Ninja's log and the memory log through `fs`, and running dryruns through
/// `runner`. Throws CompileDatabaseError.
Generation GenerateForDatabase(const GenOptions& options, const GenerationContext& context,
                               const DryrunRunner& runner, const FileSystem& fs);

/// Where the graph goes when it is part of a generator's manifest (`fastcuda ninja`).
struct ManifestPart {
  std::string dir;                       ///< where Ninja runs the manifest
  std::string ninja_log;                 ///< Ninja's log of that manifest (the history)
  bool has_defaults = false;             ///< the manifest names default targets
  std::set<std::string> not_by_default;  ///< objects (as it names them) that its defaults do not need
  bool ninja_shows_exit_code = false;    ///< its Ninja prints `FAILED: [code=N]` (1.13 and later)
};

/// Plans `database` as GenerateForDatabase plans the one it reads; with a
/// `part`, the graph is written as that part of a generator's manifest.
Generation GenerateForEntries(CompileDatabase database, const GenOptions& options,
                              const GenerationContext& context, const DryrunRunner& runner,
                              const FileSystem& fs, const std::optional<ManifestPart>& part = std::nullopt);

/// Writes a generation through `fs`.
void WriteGeneration(const Generation& generation, const std::string& out_dir, WritableFileSystem& fs);

/// What `fastcuda gen` does with its parsed `options`: plans the nvcc call
/// or the database and writes the manifests, through `io`. Its status: 2
/// where the database cannot be planned (said on stderr), else 0.
int Generate(const GenOptions& options, const CommandIo& io);

}  // namespace fastcuda

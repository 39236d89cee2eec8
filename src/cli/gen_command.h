// `fastcuda gen --compdb`: planned from what it reads, written at the edge.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "src/base/dryrun_runner.h"
#include "src/base/file_system.h"
#include "src/cli/gen_options.h"
#include "src/graph/launchers.h"

namespace fastcuda {

/// What generation takes from the process and the machine, besides the
/// files it reads: asked at the edge (LoadGenerationContext).
struct GenerationContext {
  std::map<std::string, std::string> environment;
  std::string fastcuda;          ///< the tool the manifest runs
  bool priority_ladder = false;  ///< the Ninja that runs it ranks edges by path
  std::optional<int64_t> available_memory_kib;
  VersionProbe launcher_version;  ///< asked about launchers whose version matters
};

/// What generation writes: files by path (the top manifest always, the
/// others when changed), files to remove, and its report for stderr.
struct Generation {
  std::map<std::string, std::string> files;
  std::vector<std::string> removed;
  std::string report;
};

/// The context of this process and machine.
GenerationContext LoadGenerationContext(const GenOptions& options);

/// Plans the database that `options` names, reading it, the dryrun cache,
/// Ninja's log and the memory log through `fs`, and running dryruns through
/// `runner`. Throws CompileDatabaseError.
Generation GenerateForDatabase(const GenOptions& options, const GenerationContext& context,
                               const DryrunRunner& runner, const FileSystem& fs);

/// Writes a generation through `fs`.
void WriteGeneration(const Generation& generation, const std::string& out_dir, WritableFileSystem& fs);

}  // namespace fastcuda

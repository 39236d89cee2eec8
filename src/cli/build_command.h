// `fastcuda build`: what it decides before it runs Ninja.
#pragma once

#include <map>
#include <string>

#include "src/base/file_system.h"
#include "src/cli/gen_options.h"

namespace fastcuda {

/// True when there is no manifest yet, when Ninja's log has times that it
/// lacks, or when `gen` would plan with other options or another toolchain
/// environment than it did (GenerationKey).
bool NeedsGeneration(const GenOptions& options, const std::map<std::string, std::string>& environment,
                     const FileSystem& fs);

/// Removes the intermediates of every TU whose object is missing (see
/// OrphanedIntermediates), as the graph directory's `kept-files` lists them.
void RemoveOrphanedIntermediates(const std::string& out_dir, WritableFileSystem& fs);

}  // namespace fastcuda

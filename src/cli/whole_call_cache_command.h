// The whole-call cache's side of a graph (see src/graph/whole_call_cache.h):
// asking ccache without compiling, and storing FastCuda's object under the
// key ccache itself computes. ccache runs its `prefix_command` in place of
// the compiler; that prefix is fastcuda, which then only fails (a lookup
// that missed) or hands over the object the steps made (a store).
#pragma once

#include <map>
#include <string>
#include <vector>

#include "src/base/command_io.h"
#include "src/base/file_system.h"
#include "src/base/process.h"
#include "src/plan/step_protocol.h"

namespace fastcuda {

/// Makes the cache command of `spec` (`ccache nvcc ...`) a lookup: on a miss
/// neither the preprocessor nor the compiler runs, and the command fails.
void AskWithoutCompiling(ProcessSpec& spec);

/// Stores the object the step made (its first output) and its depfile
/// (`cache.store_depfile`) with the cache command `cache.store`; runs in the
/// step's environment `step`. A store that fails only costs a later hit
/// (said under FASTCUDA_VERBOSE of `environment`).
void StoreInWholeCallCache(const StepInvocation& options, const ProcessSpec& step, CommandRunner& runner,
                           WritableFileSystem& fs, const std::map<std::string, std::string>& environment);

/// True when fastcuda runs as the cache's prefix command (`environment`
/// names the object it hands over).
bool RunAsCachePrefix(const std::map<std::string, std::string>& environment);

/// fastcuda as the cache's prefix command, given the compiler's command line
/// (`nvcc ARGS`): exits 1 for a lookup, or writes the object and depfile
/// the store hands over at nvcc's -o and -MF.
int CachePrefixMain(const std::vector<std::string>& nvcc, const CommandIo& io);

}  // namespace fastcuda

// A whole-call cache (ccache on `ccache nvcc ...`) asked before the steps: a
// build whose cache already holds the nvcc call's object is as fast as plain
// nvcc with that cache, and one that misses runs the steps, then stores
// their object under the key ccache itself would use.
#pragma once

#include <string>
#include <vector>

#include "src/base/file_system.h"
#include "src/graph/step_graph.h"

namespace fastcuda {

/// True for a launcher prefix whose tool caches whole nvcc calls and can be
/// asked without compiling (ccache).
bool IsWholeCallCache(const std::vector<std::string>& launcher);

/// True when the lookup's result file `result` (as `fs` finds it) says the
/// cache held the call: the lookup writes "hit" or "miss" (step_command.cc).
bool ReadsCacheHit(const FileSystem& fs, const std::string& result);

/// `nvcc` with the value of its output flag (-o) replaced by `object` and of
/// its depfile flag (-MF) by `depfile`, in whichever spelling it has them. A
/// command without a depfile gets `-MD -MT TARGET -MF depfile`, its original
/// object the target: what CMake adds to the command a compile database
/// shows (ccache's key holds those flags, not where they are nor -MT's value).
std::vector<std::string> WithOutputs(std::vector<std::string> nvcc, const std::string& object,
                                     const std::string& depfile);

/// Adds to `graph` the lookup of its nvcc call, `launcher` + `nvcc` (the
/// entry's command), first: a step that asks the cache without compiling and
/// writes "hit" or "miss" to its result file, the cache's object and its
/// depfile (which Ninja then reads for the lookup's headers), and a dyndep
/// file. Every other step waits for it and, on a hit, does not run its
/// program. The step that writes the object (which copies the cache's on a
/// hit) and the user's depfile (the lookup's headers on a hit) wait for it
/// through the dyndep file alone (WholeCallCacheUse::dyndep): on a hit,
/// nothing needs the TU's other steps and Ninja starts none of them. On a
/// miss, the object's step stores its object in the cache, with the
/// headers of the user's depfile (whose step is then listed before it) or of
/// the kept preprocess depfiles. Returns false, changing nothing, unless
/// `launcher` is a whole-call cache and the call writes one object and keeps
/// header depfiles, and the user's depfile does not wait for the object.
bool AddWholeCallCache(StepGraph& graph, const std::vector<std::string>& launcher,
                       const std::vector<std::string>& nvcc);

/// True for a step that waits for its graph's lookup through the lookup's
/// dyndep file alone (WholeCallCacheUse::dyndep).
bool WaitsThroughDyndep(const GraphStep& step);

/// The step of `graph` that asks the whole-call cache (AddWholeCallCache
/// lists it first), if it has one.
const GraphStep* CacheLookupOf(const StepGraph& graph);

}  // namespace fastcuda

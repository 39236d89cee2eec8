// Planning every nvcc call of a compile database as one set of step graphs.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "src/base/dryrun_runner.h"
#include "src/base/file_system.h"
#include "src/graph/launchers.h"
#include "src/graph/step_graph.h"
#include "src/nvcc/compile_database.h"

namespace fastcuda {

/// Dryrun texts by cache key, kept between generations.
using DryrunCache = std::map<std::string, std::string>;

/// How to plan.
struct GlobalPlanOptions {
  std::string out_dir;         ///< absolute; work dirs go to OUT/tu/
  unsigned jobs = 1;           ///< dryruns run at once
  bool keep_depfiles = false;  ///< keep every TU's header depfiles (for the launcher)
  StepLaunchers launchers;     ///< host and device launchers; `nvcc` is each entry's own
  CompileModes modes;          ///< module id and split-compile modes
  /// The environment the dryruns and steps run in: its NVCC_*_FLAGS are
  /// nvcc's arguments too, `$VAR`s in transcripts expand from it, and its
  /// ToolchainEnvironment is set on every step and keys the dryrun cache.
  std::map<std::string, std::string> environment;
};

/// Every entry's graph, and what it took.
struct GlobalPlan {
  std::vector<StepGraph> graphs;                ///< one per database entry, in its order
  std::vector<std::string> whole_nvcc_entries;  ///< "FILE: why" for entries nvcc runs whole
  std::vector<std::string> nvcc_programs;       ///< the nvcc binaries used (regeneration inputs)
  std::vector<std::string> response_files;      ///< the entries' response files (regeneration inputs)
  /// nvcc and the host compilers, by the names the entries give them, as
  /// identified for the dryruns' keys (ToolchainProgramsPath records them).
  std::map<std::string, ProgramIdentity> programs;
  size_t shapes = 0;          ///< distinct command shapes
  size_t dryruns_run = 0;     ///< dryruns run this time
  size_t dryruns_cached = 0;  ///< dryruns taken from the cache
};

/// Plans all entries: one dryrun per command shape (the same flags apart
/// from source and output), instantiated per TU once a second TU of the
/// shape confirms the substitution is exact, else one dryrun per TU.
/// Dryruns run in parallel and go through `cache` (updated in place; entries
/// not used this time are dropped). An entry FastCuda cannot split becomes a
/// graph of one step that runs its nvcc command whole.
GlobalPlan PlanCompileDatabase(const CompileDatabase& database, const GlobalPlanOptions& options,
                               DryrunCache& cache, const DryrunRunner& runner, const FileSystem& fs);

}  // namespace fastcuda

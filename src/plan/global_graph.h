// Planning every nvcc call of a compile database as one set of step graphs.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "src/nvcc/compile_database.h"
#include "src/base/file_system.h"
#include "src/graph/launchers.h"
#include "src/graph/step_graph.h"

namespace fastcuda {

/// Where a program is and what version of it that is.
struct ProgramIdentity {
  std::string path;   ///< resolved on PATH, links followed
  std::string stamp;  ///< size and mtime; empty if it could not be found
};

/// Runs `nvcc --dryrun`; behind an interface so tests can replay recordings.
/// Called from several threads at once.
class DryrunRunner {
 public:
  virtual ~DryrunRunner() = default;
  /// The dryrun text of `nvcc_and_args` run in `cwd`, or nullopt if nvcc failed.
  virtual std::optional<std::string> Dryrun(const std::vector<std::string>& nvcc_and_args,
                                            const std::string& cwd) const = 0;
  /// Identifies the nvcc that `program` names, for cache keys.
  virtual ProgramIdentity Identify(const std::string& program) const = 0;
};

/// The real nvcc.
class NvccDryrunRunner : public DryrunRunner {
 public:
  std::optional<std::string> Dryrun(const std::vector<std::string>& nvcc_and_args,
                                    const std::string& cwd) const override;
  ProgramIdentity Identify(const std::string& program) const override;
};

/// Dryrun texts by cache key, kept between generations.
using DryrunCache = std::map<std::string, std::string>;

/// How to plan.
struct GlobalPlanOptions {
  std::string out_dir;   ///< absolute; work dirs go to OUT/tu/
  unsigned jobs = 1;     ///< dryruns run at once
  bool keep_depfiles = false;  ///< keep every TU's header depfiles (for the launcher)
  StepLaunchers launchers;     ///< host and device launchers; `nvcc` is each entry's own
  CompileModes modes;          ///< module id and split-compile modes
  std::map<std::string, std::string> toolchain_environment;  ///< see ToolchainEnvironment
};

/// Every entry's graph, and what it took.
struct GlobalPlan {
  std::vector<StepGraph> graphs;   ///< one per database entry, in its order
  std::vector<std::string> whole_nvcc_entries;  ///< "FILE: why" for entries nvcc runs whole
  std::vector<std::string> nvcc_programs;       ///< the nvcc binaries used (regeneration inputs)
  std::vector<std::string> response_files;      ///< the entries' response files (regeneration inputs)
  size_t shapes = 0;               ///< distinct command shapes
  size_t dryruns_run = 0;          ///< dryruns run this time
  size_t dryruns_cached = 0;       ///< dryruns taken from the cache
};

/// Plans all entries: one dryrun per command shape (the same flags apart
/// from source and output), instantiated per TU once a second TU of the
/// shape confirms the substitution is exact, else one dryrun per TU.
/// Dryruns run in parallel and go through `cache` (updated in place; entries
/// not used this time are dropped). An entry FastCuda cannot split becomes a
/// graph of one step that runs its nvcc command whole.
GlobalPlan PlanCompileDatabase(const CompileDatabase& database, const GlobalPlanOptions& options,
                               DryrunCache& cache, const DryrunRunner& runner,
                               const FileSystem& fs);

}  // namespace fastcuda

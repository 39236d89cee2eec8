// The options that `fastcuda gen` and `fastcuda build` share, and the key
// that tells `build` whether `gen` must plan anew.
#pragma once

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "src/graph/compile_modes.h"
#include "src/graph/launchers.h"
#include "src/plan/pool_depths.h"

namespace fastcuda {

/// The options of `gen` and `build`.
struct GenOptions {
  std::string out_dir;  ///< absolute
  std::string compdb;   ///< absolute; empty for a single call
  std::string pools;
  unsigned jobs = 0;                  ///< 0: the core count
  std::vector<std::string> only;      ///< keep only entries whose output path contains one
  std::vector<std::string> excludes;  ///< leave out entries whose output path contains one
  bool launcher_records = false;      ///< write what `fastcuda --graph` reads
  /// Print the generation's report (the TUs, dryruns, calls that run whole);
  /// not again where the same graph is only ranked anew (RegenerateRanked).
  bool report = true;
  /// The launcher (`fastcuda --build-graph`) runs the graph: steps also save
  /// what they print, for the launcher of their TU to print, and the TUs are
  /// listed (objects.json). Implies launcher_records.
  bool launcher_builds = false;
  /// Entries that ask for no depfile write one beside their object
  /// (OUTPUT.d, with -MD), as CMake's Makefile rules ask nvcc to: make reads
  /// a TU's headers from there, even where the graph built its object before
  /// make's own rule would run.
  bool object_depfiles = false;
  /// Under make (CMake's Makefiles): the edge of each object is described
  /// as CMake's rule for it is ("Building CUDA object PATH", ObjectLine
  /// from the database's directory), and `build` prints those lines and
  /// the steps' output instead of Ninja's status (ObjectLineFilter).
  bool object_lines = false;
  StepLaunchers launchers;  ///< host and device launchers
  /// (TEXT, LAUNCHER): entries whose output path contains TEXT and whose
  /// command has no launcher run as if LAUNCHER (shell words) came first
  std::vector<std::pair<std::string, std::string>> launchers_for;
  /// Mode texts as given (parsed by CompileModesOf), written back by GenCommandLine.
  std::string module_id;
  std::string split_compile;
  std::string early_host;
  std::string priority_ladder = "auto";
  std::vector<std::string> nvcc_call;  ///< after `--`
};

/// The options that no argument gives: the launchers and mode texts of
/// `environment` (FASTCUDA_HOST_LAUNCHER, FASTCUDA_MODULE_ID, ...).
GenOptions DefaultGenOptions(const std::map<std::string, std::string>& environment);

/// The arguments of `gen` or `build` over DefaultGenOptions of
/// `environment`, paths made absolute. Throws std::invalid_argument with the
/// usage on a wrong or missing option, and on a mode text that
/// CompileModesOf would reject (before any dryrun runs).
GenOptions ParseGenOptions(const std::vector<std::string>& args,
                           const std::map<std::string, std::string>& environment);

/// The compile modes that the options' mode texts name.
CompileModes CompileModesOf(const GenOptions& options);

/// The pools of a graph generated with `options` (--pools, and where its
/// device compiles run remotely, WithRemotePools of RemoteJobsOf
/// `environment` on a machine of `cpus`). `launchers` are the options' own
/// with their versions (AddLauncherVersions): which steps sccache runs,
/// and so which go to the remote pool, depends on its version.
PoolDepths GraphPools(const GenOptions& options, const StepLaunchers& launchers,
                      const std::map<std::string, std::string>& environment, unsigned cpus);

/// The -j that runs the graph of `options`: theirs, else where its device
/// compiles run remotely (`launchers` as for GraphPools), RemoteJobsOf's
/// local and remote jobs together, else 0 (NinjaJobArguments decides).
unsigned GraphNinjaJobs(const GenOptions& options, const StepLaunchers& launchers,
                        const std::map<std::string, std::string>& environment, unsigned cpus);

/// The `fastcuda gen` call that regenerates with the same options.
std::vector<std::string> GenCommandLine(const GenOptions& options);

/// What `gen` planned with beyond the database: its command line and the
/// toolchain's part of `environment` (a changed CPATH must plan anew).
std::string GenerationKey(const GenOptions& options, const std::map<std::string, std::string>& environment);

}  // namespace fastcuda

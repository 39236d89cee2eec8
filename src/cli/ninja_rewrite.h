// `fastcuda ninja`'s rewrite of a generator's manifest, in three parts:
// reading its nvcc edges, planning their steps and cutting the edges out
// (in memory), and writing what was planned.
#pragma once

#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "ninja-gen/manifest.h"
#include "src/base/command_io.h"
#include "src/cli/gen_command.h"
#include "src/cli/gen_options.h"
#include "src/nvcc/compile_database.h"
#include "src/plan/log_handover.h"

namespace fastcuda {

/// The option with which the manifest's regeneration edge calls back.
inline constexpr const char* kRewriteFlag = "--fastcuda-rewrite";

/// The command line of `fastcuda ninja`: what it reads, and what goes to Ninja.
struct NinjaArguments {
  std::string dir;                       ///< -C, absolute
  std::string manifest = "build.ninja";  ///< -f, as Ninja would open it from `dir`
  bool rewrite_only = false;             ///< kRewriteFlag: write the manifest, run nothing
  std::vector<std::string> passed_on;    ///< every other argument, for Ninja
};

/// Reads -C and -f as Ninja does, up to a tool (`-t`) or `--`.
NinjaArguments ParseNinjaArguments(const std::vector<std::string>& args);

/// The generation options of the steps: the defaults of `environment`, in
/// the rewrite's directory (RewriteDir).
GenOptions PartOptions(const NinjaArguments& arguments,
                       const std::map<std::string, std::string>& environment);

/// What decides the rewrite besides the manifest's files: the arguments that
/// shape it, fastcuda itself and the toolchain environment.
std::string RewriteKey(const NinjaArguments& arguments, const GenOptions& options,
                       const std::map<std::string, std::string>& environment);

/// The nvcc compile that `edge` runs, as a compile entry run in `dir`, or
/// why FastCuda leaves the edge as the generator wrote it.
struct NvccEdge {
  std::optional<CompileEntry> entry;
  std::string why_kept;  ///< set when there is no entry
};

/// Reads `edge`'s command: an nvcc compile of one source into one object,
/// without shell syntax FastCuda would have to reproduce (operators,
/// redirections, variables), response files or other outputs.
NvccEdge NvccEdgeOf(const Manifest& manifest, const ManifestEdge& edge, const std::string& dir);

/// What the rewrite writes, planned in memory: WriteRewrite writes it.
struct PlannedRewrite {
  Generation generation;  ///< the steps' files (WriteGeneration)
  /// The cut manifest's files by absolute path; `top`, the copy of the top
  /// file, among them.
  std::map<std::string, std::string> copies;
  std::string top;
  std::vector<SharedObject> shared_objects;  ///< SaveSharedObjects
  std::string key;                           ///< RewriteKey, at RewriteKeyPath
  std::string ninja_log;                     ///< the manifest's Ninja log, at NinjaLogSourcePath
  /// Where plain ninja may tell a no-op (PlainNinjaFindsNothingToDo): the
  /// texts of NoopCheckPath and of the probe manifests by name (none: nowhere).
  std::string noop_check;
  std::map<std::string, std::string> noop_probes;
};

/// Plans the rewrite of `manifest` (read from `arguments.dir`): its nvcc
/// edges (NvccEdgeOf) become the steps of a generation, which runs its
/// dryruns and reads its history through `io`, and are cut out of the
/// copies of the manifest's files.
PlannedRewrite PlanRewrite(const Manifest& manifest, const NinjaArguments& arguments, const CommandIo& io);

/// Writes what PlanRewrite planned for the rewrite in `out_dir` through
/// `fs`, and links fastcuda as `ninja` there (SelfAsNinjaPath).
void WriteRewrite(const PlannedRewrite& rewrite, const std::string& out_dir, WritableFileSystem& fs);

/// Reads the manifest and writes its rewritten copy and the steps (the
/// caller holds the directory's lock), printing the generation's report
/// where `report` (not again for a rewrite that only ranks the same graph
/// by step times). Returns 2, writing nothing, for a manifest Ninja would refuse.
int RewriteManifest(const NinjaArguments& arguments, const CommandIo& io, bool report);

/// True when the rewrite is missing, was made with other arguments or
/// toolchain, or lacks step times that Ninja's log now has. A changed file of
/// the manifest is Ninja's to find, through the rewrite's own edge.
bool RewriteNeeded(const NinjaArguments& arguments, const CommandIo& io);

}  // namespace fastcuda

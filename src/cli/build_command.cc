// `fastcuda build`: generate when needed, then run Ninja.
#include <filesystem>
#include <optional>
#include <stdexcept>

#include "src/base/directory_lock.h"
#include "src/base/file_system.h"
#include "src/cli/commands.h"
#include "src/cli/gen_options.h"
#include "src/cli/run_ninja.h"
#include "src/graph/kept_intermediates.h"
#include "src/plan/graph_dir.h"

namespace fastcuda {
namespace {

/// Removes the intermediates of every TU whose object is missing (see
/// OrphanedIntermediates).
void RemoveOrphanedIntermediates(const std::string& out_dir) {
  RealFileSystem fs;
  std::vector<KeptFiles> kept = ParseKeptFiles(fs.Read(KeptFilesPath(out_dir)).value_or(""));
  for (const std::string& path : OrphanedIntermediates(kept, fs)) std::filesystem::remove(path);
}

/// The size of the file at `path`; 0 when there is none.
uintmax_t FileSize(const std::string& path) {
  std::error_code missing;
  uintmax_t size = std::filesystem::file_size(path, missing);
  return missing ? 0 : size;
}

/// True when the manifest lacks step times that Ninja's log now holds: the
/// first build that finds the log grown regenerates, so that the TU order
/// and the priority ladder come from measured times.
bool HistoryArrived(const GenOptions& options) {
  std::optional<std::string> size_then = RealFileSystem().Read(NoHistoryPath(options.out_dir));
  return size_then && FileSize(NinjaLogPath(options.out_dir)) > std::stoull("0" + *size_then);
}

/// True when there is no manifest yet, when Ninja's log has times that it
/// lacks, or when `gen` would plan with other options or another toolchain
/// environment than it did (GenerationKey).
bool NeedsGeneration(const GenOptions& options) {
  RealFileSystem fs;
  return !fs.IsFile(GlobalManifestPath(options.out_dir)) || HistoryArrived(options) ||
         fs.Read(GenCommandPath(options.out_dir)) != GenerationKey(options);
}

}  // namespace

int BuildMain(const std::vector<std::string>& args) {
  GenOptions options = ParseGenOptions(args);
  if (options.compdb.empty()) throw std::invalid_argument("build needs --compdb FILE --out DIR");
  DirectoryLock lock(options.out_dir, "build.lock", [&] {
    Complain("another fastcuda build is running in " + options.out_dir + "; waiting for it to finish");
  });
  if (NeedsGeneration(options)) {
    if (int status = GenMain(args); status != 0) return status;
  }
  RemoveOrphanedIntermediates(options.out_dir);
  NinjaRun ninja;
  ninja.dir = options.out_dir;
  ninja.jobs = options.jobs;
  ninja.lock_fd = lock.fd();
  return RunNinja(ninja).exit_code;
}

}  // namespace fastcuda

// Which sub-steps run through a launcher (ccache, sccache, distcc, icecc, a
// remote-execution client), and which launcher that is.
#pragma once

#include <functional>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "src/base/process.h"
#include "src/graph/compile_modes.h"
#include "src/nvcc/step.h"

namespace fastcuda {

/// The launchers a graph's steps may run through, by where they come from.
struct StepLaunchers {
  std::vector<std::string> host;    ///< FASTCUDA_HOST_LAUNCHER: for the host compile steps
  std::vector<std::string> device;  ///< FASTCUDA_DEVICE_LAUNCHER: for cicc, ptxas, fatbinary
  std::vector<std::string> nvcc;    ///< the prefix of the nvcc command itself (`ccache nvcc ...`)
  /// The version of each launcher program whose steps depend on it (sccache),
  /// asked at the edge (AddLauncherVersion): planning runs no program.
  std::map<std::string, std::string> versions = {};
};

/// FASTCUDA_HOST_LAUNCHER and FASTCUDA_DEVICE_LAUNCHER of `environment`,
/// split into shell words. Where FASTCUDA_REMOTE names a remote-execution
/// endpoint and FASTCUDA_DEVICE_LAUNCHER is unset, the device launcher is
/// `remote_client` (FastCuda's own client) with that endpoint: the endpoint
/// is in the steps' commands, as any launcher is, so a graph generated for
/// a remote keeps running its steps there whatever the build's environment.
StepLaunchers LaunchersFrom(const std::map<std::string, std::string>& environment,
                            const std::string& remote_client = "");

/// The device launcher that runs steps on the REAPI endpoint `remote`
/// (grpc://HOST:PORT) through FastCuda's client `remote_client`.
std::vector<std::string> RemoteLauncher(const std::string& remote_client, const std::string& remote);
/// True for a step's command that RemoteLauncher starts.
bool RunsRemotely(const std::vector<std::string>& argv);
/// `remote` (a RemoteLauncher) for a step that runs here, its result looked
/// up in the action cache first and stored there after a run
/// (`fastcuda-remote --cache-only`): one a worker could not run, as it
/// reads the project's and the system's headers.
std::vector<std::string> CachedHereLauncher(const std::vector<std::string>& remote);
/// True for a step's command that CachedHereLauncher starts.
bool CachesHere(const std::vector<std::string>& argv);
/// The kinds of step that `launchers` run on remote workers: cicc and
/// ptxas where FastCuda's client (RemoteLauncher) runs them, with cudafe++
/// where it makes nvcc's module id (`module_id`). Where `environment` sets
/// FASTCUDA_REMOTE_JOBS, the user's word that the launchers distribute
/// (sccache-dist, distcc, rewrapper): also the device compiles another
/// device launcher runs (LauncherFor), and the host compile where the host launcher
/// distributes (distcc, icecc, or the device launcher's own tool:
/// sccache-dist), not where it caches here (ccache).
std::set<StepKind> RemoteKinds(const StepLaunchers& launchers,
                               const std::map<std::string, std::string>& environment, ModuleIdMode module_id);

/// Tells the version of a launcher's program ("0.9.1"), or "" if it cannot.
using VersionProbe = std::function<std::string(const std::string& program)>;

/// ProgramVersion, its programs run through `runner`.
VersionProbe VersionProbeOf(CommandRunner& runner);

/// Adds to `versions` the version of `launcher`'s program, asked of
/// `version`, when what LauncherFor gives it depends on one.
void AddLauncherVersion(std::map<std::string, std::string>& versions,
                        const std::vector<std::string>& launcher, const VersionProbe& version);

/// AddLauncherVersion for the host, device and nvcc launchers.
void AddLauncherVersions(StepLaunchers& launchers, const VersionProbe& version);

/// `launchers` with AddLauncherVersions' versions.
StepLaunchers VersionedLaunchers(StepLaunchers launchers, const VersionProbe& version);

/// One line for each launcher program in `versions` that told no version
/// (not on PATH, say): LauncherFor then leaves it out of the steps that
/// need one (sccache's cicc, ptxas and cudafe++), which the user asked it
/// to run. Empty where every one told its version.
std::string UnversionedLaunchersReport(const std::map<std::string, std::string>& versions);

/// The words to put before `step`'s command, or none. Host and device
/// preprocessing get FastCuda's remote client alone, as CachedHereLauncher,
/// and so does the host compile where no other launcher is named for it; no
/// launcher runs a step that writes no file (ptxas checking a PTX-only
/// target). A host compile gets `host`, a cicc, ptxas or
/// fatbinary step `device`, each limited to the steps its tool is known to
/// run when it is one of ccache, sccache, distcc or icecc. Without one, the
/// nvcc command's own launcher runs the steps its tool is known to run, or
/// the host compile when the tool is not one of those. sccache knows cicc
/// and ptxas since 0.9 (`launchers.versions`), and cudafe++ since 0.10:
/// cudafe++ gets `device` (or else the nvcc command's launcher) only when
/// that is sccache or FastCuda's remote client and cudafe++ writes the
/// module id. Its hit gives back the id it stored, on which cicc's key
/// depends: without it, a TU whose id cudafe++ makes anew in every run (it
/// holds its process id) misses every cicc and ptxas.
std::vector<std::string> LauncherFor(const StepLaunchers& launchers, const Step& step);

/// The variables to set for a step whose command is `argv`, where
/// `inherited` (the step's environment) does not set them. sccache keys a
/// host compile on its preprocessed code, which in sccache's direct mode
/// keeps line markers that name the step's work directory;
/// `SCCACHE_DIRECT=false`, which `sccache nvcc` sets for its own sub-steps,
/// preprocesses without them. The host compile then shares its entries with
/// `sccache nvcc`'s and with another build directory's, as cicc and ptxas do
/// (not preprocessed, they are keyed alike in either mode).
std::map<std::string, std::string> LauncherVariables(const std::vector<std::string>& argv,
                                                     const std::map<std::string, std::string>& inherited);

}  // namespace fastcuda

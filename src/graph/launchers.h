// Which sub-steps run through a launcher (ccache, sccache, distcc, icecc, a
// remote-execution client), and which launcher that is.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "src/base/process.h"
#include "src/nvcc/step.h"

namespace fastcuda {

/// The launchers a graph's steps may run through, by where they come from.
struct StepLaunchers {
  std::vector<std::string> host;    ///< FASTCUDA_HOST_LAUNCHER: for the host compile steps
  std::vector<std::string> device;  ///< FASTCUDA_DEVICE_LAUNCHER: for cicc, ptxas, fatbinary
  std::vector<std::string> nvcc;    ///< the prefix of the nvcc command itself (`ccache nvcc ...`)
};

/// FASTCUDA_HOST_LAUNCHER and FASTCUDA_DEVICE_LAUNCHER, split into shell words.
StepLaunchers LaunchersFromEnvironment();

/// Tells the version of a launcher's program ("0.9.1"), or "" if it cannot.
using VersionProbe = std::function<std::string(const std::string& program)>;


/// The words to put before `step`'s command, or none. Host preprocessing
/// and cudafe++ never get a launcher, nor does a step that writes no file
/// (ptxas checking a PTX-only target). A host compile gets `host`, a cicc,
/// ptxas or fatbinary step `device`, each limited to the steps its tool is
/// known to run when it is one of ccache, sccache, distcc or icecc. Without
/// one, the nvcc command's own launcher runs the steps its tool is known to
/// run, or the host compile when the tool is not one of those. `version`
/// is asked only about sccache, which knows cicc and ptxas since 0.9.
std::vector<std::string> LauncherFor(const StepLaunchers& launchers, const Step& step,
                                     const VersionProbe& version = ProgramVersion);

}  // namespace fastcuda

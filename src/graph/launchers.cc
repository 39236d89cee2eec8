#include "src/graph/launchers.h"

#include <re2/re2.h>

#include <algorithm>
#include <filesystem>
#include <optional>
#include <string_view>
#include <vector>

#include "src/base/shell_words.h"
#include "src/base/toolchain_environment.h"

namespace fastcuda {
namespace {

/// A step kind a known launcher can usefully run, from which version on.
struct KnownLauncher {
  std::string_view tool;
  StepKind kind;
  std::string_view since;  ///< empty: any version
};

/// ccache, distcc and icecc cache or distribute `gcc -c` only; sccache
/// also knows cicc and ptxas since 0.9 (mozilla/sccache#2247; older ones
/// fail on them), and cudafe++ since 0.10. None of them does anything with
/// `-E` (the caches pass it straight to the compiler, distcc and icecc
/// preprocess locally anyway), and none knows fatbinary. FastCuda's remote
/// client runs cicc, ptxas and cudafe++: their inputs are all in the work
/// dir, and a cached cudafe++ gives back the module id it made, which nvcc
/// makes anew in every run for some TUs (CUB's algorithms), so that their
/// cicc hits too. Not fatbinary: 7 ms of work locally, 0.84 s as a remote
/// step on the 16-core machine (bench/RESULTS.md, "Remote builds with the
/// workers on cores of their own").
constexpr KnownLauncher kKnownLaunchers[] = {
    {"ccache", StepKind::kHostCompile, ""},    {"distcc", StepKind::kHostCompile, ""},
    {"icecc", StepKind::kHostCompile, ""},     {"sccache", StepKind::kHostCompile, ""},
    {"sccache", StepKind::kCicc, "0.9"},       {"sccache", StepKind::kPtxas, "0.9"},
    {"sccache", StepKind::kCudafe, "0.10"},    {"fastcuda-remote", StepKind::kCicc, ""},
    {"fastcuda-remote", StepKind::kPtxas, ""}, {"fastcuda-remote", StepKind::kCudafe, ""},
};

/// The numbers of a dotted version ("0.10.1" -> 0, 10, 1).
std::vector<int> VersionNumbers(std::string_view version) {
  static const RE2 number(R"re((\d+)\.?)re");
  std::vector<int> numbers;
  re2::StringPiece rest(version.data(), version.size());
  int value = 0;
  while (RE2::Consume(&rest, number, &value)) numbers.push_back(value);
  return numbers;
}

std::string ToolOf(const std::vector<std::string>& launcher) {
  return std::filesystem::path(launcher.front()).filename().string();
}

/// Whether the launcher's tool runs `kind`; nullopt for a tool not in the table.
std::optional<bool> KnownToRun(const std::vector<std::string>& launcher, StepKind kind,
                               const std::map<std::string, std::string>& versions) {
  if (launcher.empty()) return std::nullopt;
  std::string tool = ToolOf(launcher);
  bool known = false;
  for (const KnownLauncher& row : kKnownLaunchers) {
    if (row.tool != tool) continue;
    known = true;
    if (row.kind != kind) continue;
    if (row.since.empty()) return true;
    auto version = versions.find(launcher.front());
    return version != versions.end() && VersionNumbers(version->second) >= VersionNumbers(row.since);
  }
  return known ? std::optional<bool>(false) : std::nullopt;
}

/// The steps FASTCUDA_DEVICE_LAUNCHER is for.
bool IsDeviceCompile(StepKind kind) {
  return kind == StepKind::kCicc || kind == StepKind::kPtxas || kind == StepKind::kFatbinary;
}

/// A cudafe++ that reads its module id (FASTCUDA_MODULE_ID=own) rather than
/// writing it. sccache keys cudafe++ on its source and flags, not on that
/// file: a hit would hand back the host code of another id.
bool ReadsModuleId(const Step& step) {
  auto has = [&](std::string_view flag) {
    return std::find(step.argv.begin(), step.argv.end(), flag) != step.argv.end();
  };
  return has("--module_id_file_name") && !has("--gen_module_id_file");
}

/// Whether the host launcher sends compiles to other machines: distcc and
/// icecc do; sccache does where it is the device launcher too, which
/// distributes (sccache-dist). Others (ccache, sccache beside FastCuda's
/// remote client) compile here.
bool HostLauncherDistributes(const StepLaunchers& launchers) {
  if (launchers.host.empty()) return false;
  const std::string tool = ToolOf(launchers.host);
  return tool == "distcc" || tool == "icecc" ||
         (launchers.host == launchers.device && !RunsRemotely(launchers.device));
}

/// Whether FastCuda's client looks up `kind` in the action cache and runs
/// it here on a miss: the preprocessing, whose output cicc and cudafe++
/// then find in the cache too, and the host compile unless another
/// launcher is named for it. Then a second build directory of the same
/// sources runs no compiler at all.
bool CachedHere(const StepLaunchers& launchers, StepKind kind) {
  if (!RunsRemotely(launchers.device)) return false;
  return kind == StepKind::kHostPreprocess || kind == StepKind::kDevicePreprocess ||
         (kind == StepKind::kHostCompile && launchers.host.empty() && launchers.nvcc.empty());
}

}  // namespace

StepLaunchers LaunchersFrom(const std::map<std::string, std::string>& environment,
                            const std::string& remote_client) {
  auto words = [&](const char* variable) {
    try {
      return SplitShellWords(EnvironmentValue(environment, variable));
    } catch (const ShellSyntaxError& error) {
      throw ShellSyntaxError(std::string(variable) + ": " + error.what());
    }
  };
  StepLaunchers launchers{words("FASTCUDA_HOST_LAUNCHER"), words("FASTCUDA_DEVICE_LAUNCHER"), {}, {}};
  std::string remote = EnvironmentValue(environment, "FASTCUDA_REMOTE");
  if (launchers.device.empty() && !remote.empty() && !remote_client.empty()) {
    launchers.device = RemoteLauncher(remote_client, remote);
  }
  return launchers;
}

std::vector<std::string> RemoteLauncher(const std::string& remote_client, const std::string& remote) {
  return {remote_client, "--remote", remote};
}

bool RunsRemotely(const std::vector<std::string>& argv) {
  return argv.size() > 2 && argv[1] == "--remote" && argv[0].ends_with("fastcuda-remote");
}

std::vector<std::string> CachedHereLauncher(const std::vector<std::string>& remote) {
  std::vector<std::string> launcher = remote;
  launcher.insert(launcher.begin() + 1, "--cache-only");
  return launcher;
}

bool CachesHere(const std::vector<std::string>& argv) {
  return argv.size() > 3 && argv[1] == "--cache-only" && RunsRemotely({argv[0], argv[2], argv[3]});
}

std::set<StepKind> RemoteKinds(const StepLaunchers& launchers,
                               const std::map<std::string, std::string>& environment,
                               ModuleIdMode module_id) {
  // The user's word that the launchers distribute (sccache-dist, distcc).
  bool distributing = !EnvironmentValue(environment, "FASTCUDA_REMOTE_JOBS").empty();
  bool own_client = RunsRemotely(launchers.device);
  std::set<StepKind> kinds;
  if (own_client || (distributing && !launchers.device.empty())) {
    // The device compiles the launcher runs (LauncherFor): another tool's
    // wrapper (rewrapper) is taken at its word for all of them
    for (StepKind kind : kAllKinds) {
      if (IsDeviceCompile(kind) && KnownToRun(launchers.device, kind, launchers.versions).value_or(true))
        kinds.insert(kind);
    }
  }
  if (own_client && module_id == ModuleIdMode::kNvcc) kinds.insert(StepKind::kCudafe);
  if (distributing && HostLauncherDistributes(launchers)) kinds.insert(StepKind::kHostCompile);
  return kinds;
}

VersionProbe VersionProbeOf(CommandRunner& runner) {
  return [&runner](const std::string& program) { return ProgramVersion(runner, program); };
}

void AddLauncherVersion(std::map<std::string, std::string>& versions,
                        const std::vector<std::string>& launcher, const VersionProbe& version) {
  if (launcher.empty() || versions.count(launcher.front())) return;
  std::string tool = ToolOf(launcher);
  for (const KnownLauncher& row : kKnownLaunchers) {
    if (row.tool == tool && !row.since.empty()) {
      versions[launcher.front()] = version(launcher.front());
      return;
    }
  }
}

void AddLauncherVersions(StepLaunchers& launchers, const VersionProbe& version) {
  for (const auto* launcher : {&launchers.host, &launchers.device, &launchers.nvcc}) {
    AddLauncherVersion(launchers.versions, *launcher, version);
  }
}

StepLaunchers VersionedLaunchers(StepLaunchers launchers, const VersionProbe& version) {
  AddLauncherVersions(launchers, version);
  return launchers;
}

std::string UnversionedLaunchersReport(const std::map<std::string, std::string>& versions) {
  std::string report;
  for (const auto& [program, version] : versions) {
    if (version.empty()) {
      report += "fastcuda: `" + program +
                " --version` told no version (is it on PATH?): the steps that need a version of it run "
                "without it\n";
    }
  }
  return report;
}

std::vector<std::string> LauncherFor(const StepLaunchers& launchers, const Step& step) {
  if (!step.outputs.empty() && CachedHere(launchers, step.kind)) return CachedHereLauncher(launchers.device);
  bool host = step.kind == StepKind::kHostCompile;
  // cudafe++ only through a tool known to cache or run it (never another
  // remote runner's wrapper, which is told of cicc, ptxas and fatbinary
  // alone), and only where it makes the module id.
  bool cudafe = step.kind == StepKind::kCudafe;
  if (step.outputs.empty() || (!host && !cudafe && !IsDeviceCompile(step.kind))) return {};
  if (cudafe && ReadsModuleId(step)) return {};
  const std::vector<std::string>& chosen = host ? launchers.host : launchers.device;
  if (!chosen.empty()) {
    return KnownToRun(chosen, step.kind, launchers.versions).value_or(!cudafe) ? chosen
                                                                               : std::vector<std::string>{};
  }
  return KnownToRun(launchers.nvcc, step.kind, launchers.versions).value_or(host)
             ? launchers.nvcc
             : std::vector<std::string>{};
}

std::map<std::string, std::string> LauncherVariables(const std::vector<std::string>& argv,
                                                     const std::map<std::string, std::string>& inherited) {
  if (argv.empty() || ToolOf(argv) != "sccache" || inherited.count("SCCACHE_DIRECT")) return {};
  return {{"SCCACHE_DIRECT", "false"}};
}

}  // namespace fastcuda

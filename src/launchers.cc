#include "src/launchers.h"

#include <filesystem>
#include <optional>
#include <utility>

#include "src/process.h"
#include "src/shell_words.h"

namespace fastcuda {
namespace {

/// The step kinds each known launcher can usefully run. ccache, distcc and
/// icecc cache or distribute `gcc -c` only; sccache also knows cicc and
/// ptxas (mozilla/sccache#2247). None of them does anything with `-E` (the
/// caches pass it straight to the compiler, distcc and icecc preprocess
/// locally anyway), and none knows fatbinary.
constexpr std::pair<std::string_view, StepKind> kKnownLaunchers[] = {
    {"ccache", StepKind::kHostCompile},  {"distcc", StepKind::kHostCompile},
    {"icecc", StepKind::kHostCompile},   {"sccache", StepKind::kHostCompile},
    {"sccache", StepKind::kCicc},        {"sccache", StepKind::kPtxas},
};

/// Whether the launcher's tool runs `kind`; nullopt for a tool not in the table.
std::optional<bool> KnownToRun(const std::vector<std::string>& launcher, StepKind kind) {
  if (launcher.empty()) return std::nullopt;
  std::string tool = std::filesystem::path(launcher.front()).filename().string();
  bool known = false;
  for (const auto& [name, runs] : kKnownLaunchers) {
    if (name != tool) continue;
    if (runs == kind) return true;
    known = true;
  }
  return known ? std::optional<bool>(false) : std::nullopt;
}

bool IsDeviceCompile(StepKind kind) {
  return kind == StepKind::kCicc || kind == StepKind::kPtxas || kind == StepKind::kFatbinary;
}

}  // namespace

StepLaunchers LaunchersFromEnvironment() {
  auto words = [](const char* variable) {
    try {
      return SplitShellWords(EnvironmentVariable(variable));
    } catch (const ShellSyntaxError& error) {
      throw ShellSyntaxError(std::string(variable) + ": " + error.what());
    }
  };
  return {words("FASTCUDA_HOST_LAUNCHER"), words("FASTCUDA_DEVICE_LAUNCHER"), {}};
}

std::vector<std::string> LauncherFor(const StepLaunchers& launchers, const Step& step) {
  bool host = step.kind == StepKind::kHostCompile;
  if (step.outputs.empty() || (!host && !IsDeviceCompile(step.kind))) return {};
  const std::vector<std::string>& chosen = host ? launchers.host : launchers.device;
  if (!chosen.empty()) return KnownToRun(chosen, step.kind).value_or(true) ? chosen : std::vector<std::string>{};
  return KnownToRun(launchers.nvcc, step.kind).value_or(host) ? launchers.nvcc : std::vector<std::string>{};
}

}  // namespace fastcuda

#include "src/graph/compile_modes.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <filesystem>
#include <stdexcept>

#include "src/base/stable_hash.h"
#include "src/base/toolchain_environment.h"

namespace fastcuda {

ModuleIdMode ParseModuleIdMode(std::string_view text) {
  if (text.empty() || text == "nvcc") return ModuleIdMode::kNvcc;
  if (text == "own") return ModuleIdMode::kOwn;
  throw std::invalid_argument("FASTCUDA_MODULE_ID must be nvcc or own, not " + std::string(text));
}

SplitCompile ParseSplitCompile(std::string_view text) {
  if (text.empty() || text == "off") return {};
  if (text == "auto") return {SplitCompile::Mode::kAuto, 0};
  int threads = -1;
  auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), threads);
  if (error != std::errc() || end != text.data() + text.size() || threads < 0) {
    throw std::invalid_argument("FASTCUDA_SPLIT_COMPILE must be off, auto or a thread count, not " +
                                std::string(text));
  }
  return {SplitCompile::Mode::kFixed, threads};
}

bool ParseEarlyHost(std::string_view text) {
  if (text.empty() || text == "off") return false;
  if (text == "on") return true;
  throw std::invalid_argument("FASTCUDA_EARLY_HOST must be on or off, not " + std::string(text));
}

CompileModes CompileModesFrom(const std::map<std::string, std::string>& environment) {
  return {ParseModuleIdMode(EnvironmentValue(environment, "FASTCUDA_MODULE_ID")),
          ParseSplitCompile(EnvironmentValue(environment, "FASTCUDA_SPLIT_COMPILE")),
          ParseEarlyHost(EnvironmentValue(environment, "FASTCUDA_EARLY_HOST"))};
}

std::string OwnModuleId(const std::string& source_path, const std::vector<std::string>& outputs) {
  std::string key = source_path;
  for (const std::string& output : outputs) key += "\n" + output;
  // cudafe++ pastes the id into identifiers: keep it one.
  std::string name = std::filesystem::path(source_path).filename().string();
  std::replace_if(
      name.begin(), name.end(), [](unsigned char c) { return !std::isalnum(c); }, '_');
  std::string id = "_";
  id.append(StableHashHex(key, 16)).append("_").append(std::to_string(name.size())).append("_");
  return id.append(name);
}

std::vector<std::string> SplitCompileFlag(int threads) { return {"-split-compile", std::to_string(threads)}; }

bool HasSplitCompileFlag(const std::vector<std::string>& argv) {
  return std::any_of(argv.begin(), argv.end(), [](const std::string& word) {
    return word.starts_with("-split-compile") || word.starts_with("--split-compile");
  });
}

int AutoSplitThreads(const BuildLoad& load, int share) {
  // Not the machine's runnable threads: the chains of one TU start together,
  // and a chain that starts its ptxas while the others' split cicc run would
  // see their threads as busy cores and starve (bench/RESULTS.md).
  if (load.running >= load.slots) return 1;
  int splitting = std::max({1, load.splitting, share});
  int share_of_slots = (load.slots + splitting - 1) / splitting;
  // About half of a split step's run is serial (cicc's front end and code
  // generation, ptxas's parsing), so twice its share keeps the cores busy.
  return std::max(1, std::min(load.slots, 2 * share_of_slots));
}

std::vector<std::string> WithAutoSplit(std::vector<std::string> argv, const BuildLoad& load, int share) {
  int threads = AutoSplitThreads(load, share);
  if (threads <= 1) return argv;
  std::vector<std::string> flag = SplitCompileFlag(threads);
  argv.insert(argv.end(), flag.begin(), flag.end());
  return argv;
}

}  // namespace fastcuda

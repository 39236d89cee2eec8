#include "src/cli/whole_call_cache_command.h"

#include "src/base/depfile.h"
#include "src/base/kept_depfile.h"
#include "src/base/shell_words.h"
#include "src/base/toolchain_environment.h"
#include "src/cli/commands.h"
#include "src/nvcc/step.h"

namespace fastcuda {
namespace {

/// What fastcuda does as the cache's prefix command: kMiss, or the object
/// to hand over (the depfile in kProvideDepfile).
constexpr const char* kPrefixRole = "FASTCUDA_CACHE_PREFIX_OBJECT";
constexpr const char* kProvideDepfile = "FASTCUDA_CACHE_PREFIX_DEPFILE";
constexpr const char* kMiss = "-";

/// ccache's prefix commands, for the compiler and for the preprocessor.
constexpr const char* kCompilerPrefix = "CCACHE_PREFIX";
constexpr const char* kPreprocessorPrefix = "CCACHE_PREFIX_CPP";

std::vector<std::string> OutputOf(const std::vector<std::string>& nvcc) {
  return FlagValues(nvcc, {"-o", "--output-file"});
}
std::vector<std::string> DepfileOf(const std::vector<std::string>& nvcc) {
  return FlagValues(nvcc, {"-MF", "--dependency-output"});
}

}  // namespace

void AskWithoutCompiling(ProcessSpec& spec) {
  const std::string self = SelfExecutable();
  spec.env_set.insert_or_assign(kCompilerPrefix, self);
  spec.env_set.insert_or_assign(kPreprocessorPrefix, self);
  spec.env_set.insert_or_assign(kPrefixRole, std::string(kMiss));
}

void StoreInWholeCallCache(const StepInvocation& options, const ProcessSpec& step, CommandRunner& runner,
                           WritableFileSystem& fs, const std::map<std::string, std::string>& environment) {
  ProcessSpec store{options.cache.store, options.cwd, step.env_set, /*capture=*/true};
  store.env_set[kCompilerPrefix] = SelfExecutable();
  store.env_set.erase(kPreprocessorPrefix);
  store.env_set[kPrefixRole] = ResolvePath(options.cwd, options.outputs.front());
  std::vector<std::string> depfiles;
  for (const std::string& depfile : options.cache.store_depfiles)
    depfiles.push_back(ResolvePath(options.cwd, depfile));
  store.env_set[kProvideDepfile] = JoinShellWords(depfiles);
  ProcessResult result = runner.Run(store);
  if (result.exit_code != 0) {
    ComplainIfVerbose(environment,
                      "the cache did not store " + options.outputs.front() + ": " + result.stderr_text);
  }
  for (const std::vector<std::string>& left :
       {OutputOf(options.cache.store), DepfileOf(options.cache.store)}) {
    for (const std::string& path : left) fs.Remove(ResolvePath(options.cwd, path));
  }
}

bool RunAsCachePrefix(const std::map<std::string, std::string>& environment) {
  return !EnvironmentValue(environment, kPrefixRole).empty();
}

int CachePrefixMain(const std::vector<std::string>& nvcc, const CommandIo& io) {
  const std::string object = EnvironmentValue(io.environment, kPrefixRole);
  if (object == kMiss) return 1;
  WritableFileSystem& fs = io.fs;
  std::vector<std::string> output = OutputOf(nvcc), depfile_path = DepfileOf(nvcc);
  std::optional<std::string> bytes = fs.Read(object);
  if (output.empty() || !bytes) return 1;
  fs.Write(output.front(), *bytes);
  if (!depfile_path.empty()) {
    std::vector<std::string> headers =
        DependenciesOfDepfiles(SplitShellWords(EnvironmentValue(io.environment, kProvideDepfile)), "", fs);
    std::vector<std::string> target = FlagValues(nvcc, {"-MT"});
    fs.Write(depfile_path.front(),
             FormatDepfile({{target.empty() ? output.front() : target.front()}, headers}));
  }
  return 0;
}

}  // namespace fastcuda

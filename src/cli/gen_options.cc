#include "src/cli/gen_options.h"

#include <filesystem>
#include <stdexcept>

#include "src/base/ninja_jobs.h"
#include "src/base/process.h"
#include "src/base/shell_words.h"
#include "src/base/toolchain_environment.h"

namespace fastcuda {
namespace {

constexpr const char* kGenUsage =
    "usage: fastcuda gen --out DIR [--pools KIND=N,...] -- NVCC ARGS...\n"
    "       fastcuda gen --compdb FILE --out DIR [--pools KIND=N,...] [-j N]\n"
    "                    [--only TEXT]... [--exclude TEXT]... [--launcher-records]\n"
    "                    [--launcher-builds] [--object-depfiles] [--object-lines]\n"
    "                    [--launcher-for TEXT LAUNCHER]...\n"
    "  both: [--host-launcher LAUNCHER] [--device-launcher LAUNCHER | --remote grpc://HOST:PORT]\n"
    "        [--module-id nvcc|own] [--split-compile off|auto|N] [--early-host on|off]\n"
    "        [--priority-ladder on|off|auto]\n"
    "        (default: $FASTCUDA_HOST_LAUNCHER, $FASTCUDA_DEVICE_LAUNCHER or $FASTCUDA_REMOTE,\n"
    "         $FASTCUDA_MODULE_ID, $FASTCUDA_SPLIT_COMPILE, $FASTCUDA_EARLY_HOST,\n"
    "         $FASTCUDA_PRIORITY_LADDER)";

/// FastCuda's remote-execution client, for --remote.
std::string RemoteClient() {
  std::string client = RemoteClientExecutable();
  if (client.empty()) {
    throw std::invalid_argument(
        "--remote: this FastCuda was built without its remote client (fastcuda-remote)");
  }
  return client;
}

/// `path` made absolute and normal, as the generated files name it.
std::string Absolute(const std::string& path) {
  return std::filesystem::absolute(path).lexically_normal().string();
}

/// Rejects what the flags alone cannot: a missing --out, neither or both of
/// --compdb and an nvcc call, a bad mode; then makes the paths absolute.
GenOptions Checked(GenOptions options) {
  if (options.out_dir.empty() || options.compdb.empty() == options.nvcc_call.empty()) {
    throw std::invalid_argument(kGenUsage);
  }
  CompileModesOf(options);  // says what is wrong now, not after the dryruns
  const std::string& ladder = options.priority_ladder;
  if (ladder != "on" && ladder != "off" && ladder != "auto") {
    throw std::invalid_argument("FASTCUDA_PRIORITY_LADDER must be on, off or auto, not " + ladder);
  }
  options.out_dir = Absolute(options.out_dir);
  if (!options.compdb.empty()) options.compdb = Absolute(options.compdb);
  return options;
}

}  // namespace

GenOptions DefaultGenOptions(const std::map<std::string, std::string>& environment) {
  GenOptions options;
  options.launchers = LaunchersFrom(environment, RemoteClientExecutable());
  options.module_id = EnvironmentValue(environment, "FASTCUDA_MODULE_ID");
  options.split_compile = EnvironmentValue(environment, "FASTCUDA_SPLIT_COMPILE");
  options.early_host = EnvironmentValue(environment, "FASTCUDA_EARLY_HOST");
  options.priority_ladder = EnvironmentValue(environment, "FASTCUDA_PRIORITY_LADDER", "auto");
  return options;
}

GenOptions ParseGenOptions(const std::vector<std::string>& args,
                           const std::map<std::string, std::string>& environment) {
  GenOptions options = DefaultGenOptions(environment);
  size_t i = 0;
  auto value = [&]() -> const std::string& {
    if (i + 1 >= args.size()) throw std::invalid_argument(std::string(kGenUsage));
    return args[++i];
  };
  for (; i < args.size(); ++i) {
    const std::string& flag = args[i];
    if (flag == "--") {
      options.nvcc_call.assign(args.begin() + i + 1, args.end());
      break;
    }
    if (flag == "--out") options.out_dir = value();
    else if (flag == "--compdb") options.compdb = value();
    else if (flag == "--pools") options.pools = value();
    else if (flag == "-j") options.jobs = ParseJobCount(value(), "-j");
    else if (flag == "--exclude") options.excludes.push_back(value());
    else if (flag == "--only") options.only.push_back(value());
    else if (flag == "--launcher-records") options.launcher_records = true;
    else if (flag == "--launcher-builds") options.launcher_records = options.launcher_builds = true;
    else if (flag == "--object-depfiles") options.object_depfiles = true;
    else if (flag == "--object-lines") options.object_lines = true;
    else if (flag == "--host-launcher") options.launchers.host = SplitShellWords(value());
    else if (flag == "--device-launcher") options.launchers.device = SplitShellWords(value());
    else if (flag == "--remote") options.launchers.device = RemoteLauncher(RemoteClient(), value());
    else if (flag == "--module-id") options.module_id = value();
    else if (flag == "--split-compile") options.split_compile = value();
    else if (flag == "--early-host") options.early_host = value();
    else if (flag == "--priority-ladder") options.priority_ladder = value();
    else if (flag == "--launcher-for") {
      std::string text = value();
      options.launchers_for.emplace_back(text, value());
    } else throw std::invalid_argument("unknown option " + flag + "\n" + kGenUsage);
  }
  return Checked(std::move(options));
}

CompileModes CompileModesOf(const GenOptions& options) {
  return {ParseModuleIdMode(options.module_id), ParseSplitCompile(options.split_compile),
          ParseEarlyHost(options.early_host)};
}

std::vector<std::string> GenCommandLine(const GenOptions& options) {
  std::vector<std::string> command = {SelfExecutable(), "gen",   "--compdb",
                                      options.compdb,   "--out", options.out_dir};
  auto add = [&](std::initializer_list<std::string> words) { command.insert(command.end(), words); };
  if (!options.pools.empty()) add({"--pools", options.pools});
  if (options.jobs) add({"-j", std::to_string(options.jobs)});
  for (const std::string& text : options.only) add({"--only", text});
  for (const std::string& text : options.excludes) add({"--exclude", text});
  if (options.launcher_builds) command.push_back("--launcher-builds");
  else if (options.launcher_records) command.push_back("--launcher-records");
  if (options.object_depfiles) command.push_back("--object-depfiles");
  if (options.object_lines) command.push_back("--object-lines");
  // The launchers are written out, so that a changed environment regenerates.
  if (!options.launchers.host.empty()) add({"--host-launcher", JoinShellWords(options.launchers.host)});
  if (!options.launchers.device.empty()) add({"--device-launcher", JoinShellWords(options.launchers.device)});
  for (const auto& [text, launcher] : options.launchers_for) add({"--launcher-for", text, launcher});
  if (!options.module_id.empty()) add({"--module-id", options.module_id});
  if (!options.split_compile.empty()) add({"--split-compile", options.split_compile});
  if (!options.early_host.empty()) add({"--early-host", options.early_host});
  add({"--priority-ladder", options.priority_ladder});
  return command;
}

PoolDepths GraphPools(const GenOptions& options, const StepLaunchers& launchers,
                      const std::map<std::string, std::string>& environment, unsigned cpus) {
  return GraphPools(options.pools, launchers, CompileModesOf(options).module_id, environment, cpus);
}

unsigned GraphNinjaJobs(const GenOptions& options, const StepLaunchers& launchers,
                        const std::map<std::string, std::string>& environment, unsigned cpus) {
  if (options.jobs || RemoteKinds(launchers, environment, CompileModesOf(options).module_id).empty())
    return options.jobs;
  RemoteJobs jobs = RemoteJobsOf(environment, cpus);
  return jobs.local + jobs.remote;
}

std::string GenerationKey(const GenOptions& options, const std::map<std::string, std::string>& environment) {
  // The remote jobs are the depths of the graph's pools.
  return JoinShellWords(GenCommandLine(options)) + "\n" + EnvironmentKey(ToolchainEnvironment(environment)) +
         "\n" + EnvironmentValue(environment, "FASTCUDA_LOCAL_JOBS") + " " +
         EnvironmentValue(environment, "FASTCUDA_REMOTE_JOBS");
}

}  // namespace fastcuda

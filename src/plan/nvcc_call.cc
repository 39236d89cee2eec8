#include "src/plan/nvcc_call.h"

#include <filesystem>
#include <nlohmann/json.hpp>

#include "src/base/stable_hash.h"
#include "src/base/toolchain_environment.h"
#include "src/nvcc/host_compiler.h"
#include "src/nvcc/transcript.h"
#include "src/plan/toolchain_programs.h"

namespace fastcuda {
namespace {

/// nvcc names the output, and cannot write it, when `-o` names a directory:
/// leave the error to nvcc, and the directory alone.
void RequireFileOutputs(const StepGraph& graph, const std::string& cwd) {
  for (const std::string& output : graph.final_outputs) {
    if (output.ends_with('/') || std::filesystem::is_directory(ResolvePath(cwd, output))) {
      throw UnsupportedTranscript("the output " + output + " is a directory");
    }
  }
}

}  // namespace

std::string WorkDirFor(const std::string& root, const std::string& absolute_output) {
  std::string name = std::filesystem::path(absolute_output).filename().string();
  std::string relative = std::filesystem::path(absolute_output).lexically_relative(root).string();
  return root + "/" + name + "-" + StableHashHex(relative);
}

NvccPlan PlanNvccCall(const NvccCall& call, const WorkDirChooser& work_dir_for,
                      const StepLaunchers& launchers, const CompileModes& modes, const DryrunRunner& runner,
                      const FileSystem& fs) {
  NvccPlan plan;
  const std::string& cwd = call.cwd;
  const std::vector<std::string> effective = EffectiveNvccArgsIn(call.args, call.environment, cwd, fs);
  NvccInvocation invocation = ScanNvccArgs(effective);
  if (invocation.fallback_reason) {
    plan.fallback_reason = *invocation.fallback_reason;
    return plan;
  }
  std::vector<std::string> command = {call.nvcc};
  command.insert(command.end(), call.args.begin(), call.args.end());
  std::optional<std::string> dryrun = runner.Dryrun(command, cwd);
  if (!dryrun) {
    plan.fallback_reason = "nvcc --dryrun failed";
    return plan;
  }
  Transcript transcript = ParseTranscript(
      WithInheritedPath(*dryrun, EnvironmentValue(call.environment, "PATH")), LookupIn(call.environment));
  plan.dryrun_other_output = transcript.other_output;
  try {
    // Plan once to learn the outputs, then again in the outputs' work dir.
    // The source, where nvcc compiles one: the host compile that reads it itself reads headers.
    const std::vector<std::string> inputs = NvccInputWords(effective);
    StepGraphOptions options{cwd,
                             "/nonexistent/fastcuda-planning",
                             invocation.depfile,
                             false,
                             launchers,
                             modes,
                             WithHostCompiler(ToolchainEnvironment(call.environment),
                                              runner.Identify(HostCompilerOf(invocation.compiler_bindir,
                                                                             call.environment, cwd, fs))),
                             inputs.size() == 1 ? inputs.front() : ""};
    StepGraph draft = BuildStepGraph(transcript, options, fs);
    if (draft.final_outputs.empty()) throw UnsupportedTranscript("the call writes no file");
    RequireFileOutputs(draft, cwd);
    options.work_dir = work_dir_for(ResolvePath(cwd, draft.final_outputs.front()));
    plan.graph = BuildStepGraph(transcript, options, fs);
    ProgramIdentifier identifier(runner);
    IdentifyPathPrograms(*plan.graph, identifier, fs);
  } catch (const UnsupportedTranscript& unsupported) {
    plan.fallback_reason = unsupported.what();
  }
  return plan;
}

}  // namespace fastcuda

#include "src/cli/run_ninja.h"

#include <iostream>
#include <sstream>

#include "src/base/file_system.h"
#include "src/base/ninja_jobs.h"
#include "src/base/ninja_status.h"
#include "src/base/object_lines.h"

namespace fastcuda {

ProcessResult RunNinja(const NinjaRun& run, const CommandIo& io) {
  const std::string ninja = NinjaProgram(io.environment);
  // By name: a field added to ProcessSpec must not shift the others.
  ProcessSpec spec;
  spec.argv = {ninja};
  spec.cwd = run.cwd;
  spec.capture_output = run.capture;
  spec.own_process_group = true;
  spec.inherited_fd = run.lock_fd;
  if (run.dir.empty()) spec.argv.insert(spec.argv.end(), {"-f", run.manifest});
  else spec.argv.insert(spec.argv.end(), {"-C", run.dir});
  if (run.quiet && !run.progress) spec.argv.push_back("--quiet");
  for (const std::string& argument : NinjaJobArgumentsHere(io, run.jobs, ninja))
    spec.argv.push_back(argument);
  if (run.keep_going) spec.argv.insert(spec.argv.end(), {"-k", "0"});
  if (run.plain_status) spec.env_set["TERM"] = "dumb";
  if (!run.targets.empty()) spec.argv.push_back("--");
  spec.argv.insert(spec.argv.end(), run.targets.begin(), run.targets.end());
  if (run.capture && run.progress) {
    spec.env_set["NINJA_STATUS"] = kFollowedNinjaStatus;
    spec.stream_stdout = [&](std::string_view text) { run.progress->Read(text); };
    spec.tick = [&](int64_t) { run.progress->Tick(); };
  }
  ObjectLineFilter object_lines;
  if (run.object_lines) {
    spec.capture_output = true;
    spec.env_set["NINJA_STATUS"] = kFollowedNinjaStatus;
    spec.stream_stdout = [&](std::string_view text) { std::cout << object_lines.Read(text) << std::flush; };
  }
  StopIfInterrupted();  // stopped while it generated: no build
  ProcessResult result = io.runner.Run(spec);
  if (run.object_lines) {
    std::cout << object_lines.Finish() << std::flush;
    std::cerr << result.stderr_text << std::flush;
  } else if (spec.stream_stdout) {
    result.stdout_text = run.progress->TakeOtherOutput();
  }
  return result;
}

TargetNeeds NeedsOfTargets(const std::vector<std::string>& targets, const std::string& ninja_cwd,
                           const std::string& inputs_output) {
  TargetNeeds needs;
  std::istringstream lines(inputs_output);
  for (std::string path; std::getline(lines, path);) {
    if (!path.empty()) needs.paths.insert(ResolvePath(ninja_cwd, path));
  }
  for (const std::string& target : targets) {
    if (target.ends_with('^'))
      needs.caret_sources.insert(ResolvePath(ninja_cwd, target.substr(0, target.size() - 1)));
    else needs.paths.insert(ResolvePath(ninja_cwd, target));
  }
  return needs;
}

std::optional<TargetNeeds> AskTargetNeeds(const std::string& ninja, const std::string& cwd,
                                          const std::string& manifest,
                                          const std::vector<std::string>& targets, CommandRunner& runner,
                                          std::string& error) {
  ProcessSpec query;
  query.argv = {ninja, "-C", cwd, "-f", manifest, "-t", "inputs"};
  query.capture_output = true;
  // 1.12 and later quote paths for a shell unless told not to.
  if (NinjaMinorVersion(runner, ninja) >= 12) query.argv.push_back("--no-shell-escape");
  query.argv.insert(query.argv.end(), targets.begin(), targets.end());
  ProcessResult inputs = runner.Run(query);
  if (inputs.exit_code != 0) {
    error = inputs.stderr_text + inputs.stdout_text;
    return std::nullopt;
  }
  return NeedsOfTargets(targets, cwd, inputs.stdout_text);
}

}  // namespace fastcuda

#include "src/cli/noop_check.h"

#include <re2/re2.h>

#include <algorithm>
#include <filesystem>
#include <iostream>
#include <map>
#include <set>

#include "ninja-gen/ninja_writer.h"
#include "src/base/ninja_command_line.h"
#include "src/base/ninja_log.h"
#include "src/cli/commands.h"
#include "src/plan/graph_dir.h"
#include "src/plan/source_reads.h"

namespace fastcuda {
namespace {

constexpr std::string_view kNothingToDo = "ninja: no work to do.\n";

/// The edges (indices into `manifest`'s) that make the manifest at `path`
/// again and that they wait for, its own first; none where no edge writes
/// it. Paths are compared as Ninja, running in `dir`, reads them.
std::vector<size_t> RegenerationEdges(const Manifest& manifest, const std::string& dir,
                                      const std::string& path) {
  std::map<std::string, size_t> writer;
  for (size_t i = 0; i < manifest.edges.size(); ++i) {
    for (const auto* outputs : {&manifest.edges[i].outputs, &manifest.edges[i].implicit_outputs}) {
      for (const std::string& output : *outputs) writer.emplace(ResolvePath(dir, output), i);
    }
  }
  auto top = writer.find(ResolvePath(dir, path));
  if (top == writer.end()) return {};
  std::vector<size_t> edges = {top->second};
  std::set<size_t> seen = {top->second};
  for (size_t next = 0; next < edges.size(); ++next) {
    const ManifestEdge& edge = manifest.edges[edges[next]];
    for (const auto* inputs : {&edge.inputs, &edge.implicit_inputs, &edge.order_only_inputs}) {
      for (const std::string& input : *inputs) {
        auto found = writer.find(ResolvePath(dir, input));
        if (found != writer.end() && seen.insert(found->second).second) edges.push_back(found->second);
      }
    }
  }
  return edges;
}

/// An edge that runs in every build: a phony edge of no inputs whose output
/// is missing, as CMake's `VerifyGlobs.cmake_force` (CMake's own inputs are
/// phony edges of no inputs too, of files that exist).
bool RunsInEveryBuild(const ManifestEdge& edge, const std::string& dir, const WritableFileSystem& fs) {
  return edge.rule == kPhonyRule && edge.inputs.empty() && edge.implicit_inputs.empty() &&
         edge.order_only_inputs.empty() &&
         std::any_of(edge.outputs.begin(), edge.outputs.end(),
                     [&](const auto& out) { return !fs.MTime(ResolvePath(dir, out)); });
}

/// The regeneration probe's log (NoopRegenerationText's `builddir`).
std::string RegenerationLogPath(const NinjaArguments& arguments) {
  return NinjaLogPath(ResolvePath(arguments.dir, InRewriteDir(kNoopRegenerationName) + ".d"));
}

/// The manifest's regeneration run for real, as plain Ninja runs it before
/// every build (CMake's check of its globs), through the probe that builds
/// nothing else.
ProcessResult RegenerateManifest(const NinjaArguments& arguments, const ProcessSpec& ninja,
                                 const CommandIo& io) {
  ProcessSpec regenerate = ninja;
  regenerate.argv = {ninja.argv.front(), "-C", arguments.dir, "-f", InRewriteDir(kNoopRegenerationName),
                     kNoopNothingTarget};
  regenerate.capture_output = true;
  regenerate.merge_streams = true;
  return io.runner.Run(regenerate);
}

/// Appends the latest records of the regeneration probe's log to the
/// generator's log (at `log_path`), as plain Ninja would have logged the
/// edges that the probe ran: else both would run the generator again (a
/// record older than its inputs).
void HandRegenerationRecordsOver(const NinjaArguments& arguments, const std::string& log_path,
                                 WritableFileSystem& fs) {
  const std::string probe_log_path = RegenerationLogPath(arguments);
  std::optional<std::string> probe_log = fs.Read(probe_log_path), log = fs.Read(log_path);
  if (!probe_log || !log || NinjaLogVersion(*probe_log) != NinjaLogVersion(*log)) return;
  std::string records;
  for (const auto& [output, record] : LatestRecordsOf(*probe_log)) records += FormatNinjaLogRecord(record);
  fs.Append(log_path, records);
  fs.Remove(probe_log_path);
}

/// Whether the rewrite's copy is as new as every file it was made from.
bool CopyUpToDate(const NinjaArguments& arguments, const NoopCheck& check, const WritableFileSystem& fs) {
  std::optional<std::filesystem::file_time_type> copy =
      fs.MTime(ResolvePath(arguments.dir, InRewriteDir("build.ninja")));
  if (!copy) return false;
  return std::all_of(check.copy_inputs.begin(), check.copy_inputs.end(), [&](const std::string& input) {
    std::optional<std::filesystem::file_time_type> mtime = fs.MTime(input);
    return mtime && *mtime <= *copy;
  });
}

}  // namespace

std::string FormatNoopCheck(const NoopCheck& check) {
  static const char* const kModes[] = {"none", "checked", "always"};
  std::string text = std::string("regeneration ") + kModes[static_cast<int>(check.regeneration)] + "\n";
  for (const std::string& input : check.copy_inputs) text += "input " + input + "\n";
  return text;
}

std::optional<NoopCheck> ParseNoopCheck(std::string_view text) {
  static const RE2 regeneration(R"re(regeneration (none|checked|always)\n)re");
  static const RE2 input(R"re(input ([^\n]+)\n)re", RE2::Latin1);
  re2::StringPiece rest(text.data(), text.size());
  std::string mode, path;
  if (!RE2::Consume(&rest, regeneration, &mode)) return std::nullopt;
  NoopCheck check;
  check.regeneration = mode == "always"    ? ManifestRegeneration::kAlways
                       : mode == "checked" ? ManifestRegeneration::kChecked
                                           : ManifestRegeneration::kNone;
  while (RE2::Consume(&rest, input, &path)) check.copy_inputs.push_back(path);
  if (!rest.empty()) return std::nullopt;
  return check;
}

NoopCheck NoopCheckOf(const Manifest& manifest, const NinjaArguments& arguments,
                      const std::vector<std::string>& other_inputs, const WritableFileSystem& fs) {
  NoopCheck check;
  const std::vector<size_t> edges = RegenerationEdges(manifest, arguments.dir, arguments.manifest);
  if (!edges.empty()) check.regeneration = ManifestRegeneration::kChecked;
  if (std::any_of(edges.begin(), edges.end(),
                  [&](size_t i) { return RunsInEveryBuild(manifest.edges[i], arguments.dir, fs); })) {
    check.regeneration = ManifestRegeneration::kAlways;
  }
  for (const ManifestFile& file : manifest.files)
    check.copy_inputs.push_back(ResolvePath(arguments.dir, file.path));
  for (const std::string& input : other_inputs)
    check.copy_inputs.push_back(ResolvePath(arguments.dir, input));
  return check;
}

std::string NoopProbeText(const Manifest& manifest, const NinjaArguments& arguments) {
  NinjaWriter probe;
  NinjaBuild build;
  build.outputs = {kNoopDefaultsTarget};
  build.rule = "phony";
  build.inputs = DefaultTargets(manifest);
  probe.Build(build);
  return "# fastcuda ninja: the generator's manifest as it is, for a dry run that finds a build with nothing "
         "to do\ninclude " +
         EscapeNinjaPath(arguments.manifest) + "\n" + probe.text();
}

std::optional<std::string> NoopRegenerationText(const Manifest& manifest, const NinjaArguments& arguments) {
  NinjaWriter probe;
  probe.Variable("builddir", InRewriteDir(kNoopRegenerationName) + ".d");
  probe.Rule({"regeneration", {{"command", "$cmd"}, {"description", "$desc"}}});
  for (size_t i : RegenerationEdges(manifest, arguments.dir, arguments.manifest)) {
    const ManifestEdge& edge = manifest.edges[i];
    for (const char* unsupported : {"deps", "depfile", "dyndep", "rspfile"}) {
      if (!EvaluateEdgeVariable(manifest, edge, unsupported).empty()) return std::nullopt;
    }
    NinjaBuild build{edge.outputs,         edge.implicit_outputs,  "phony", edge.inputs,
                     edge.implicit_inputs, edge.order_only_inputs, {},      {}};
    if (edge.rule != kPhonyRule) {
      build.rule = "regeneration";
      build.variables = {{"cmd", EvaluateEdgeVariable(manifest, edge, "command")},
                         {"desc", EvaluateEdgeVariable(manifest, edge, "description")}};
      for (const char* flag : {"generator", "restat"}) {
        if (!EvaluateEdgeVariable(manifest, edge, flag).empty()) build.variables.push_back({flag, "1"});
      }
      // Another pool would need its declaration; it only bounds how many run at once.
      if (EvaluateEdgeVariable(manifest, edge, "pool") == "console")
        build.variables.push_back({"pool", "console"});
    }
    probe.Build(build);
  }
  probe.Build({{InRewriteDir(kNoopRegenerationName)}, {}, "phony", {arguments.manifest}, {}, {}, {}, {}});
  probe.Build({{kNoopNothingTarget}, {}, "phony", {}, {}, {}, {}, {}});
  return "# fastcuda ninja: the regeneration of the generator's manifest alone, with a log of its own, and a "
         "target that builds nothing\n" +
         probe.text();
}

std::optional<int> PlainNinjaFindsNothingToDo(const NinjaArguments& arguments, const std::string& out_dir,
                                              const ProcessSpec& ninja, const CommandIo& io) {
  std::vector<std::string> argv = {"ninja"};
  argv.insert(argv.end(), arguments.passed_on.begin(), arguments.passed_on.end());
  const NinjaCommandLine command_line = ParseNinjaCommandLine(argv);
  // A dry run or a debugging mode of the user's asks about the steps themselves.
  if (!command_line.tool.empty() || std::any_of(argv.begin(), argv.end(), [](const std::string& arg) {
        return arg == "-n" || arg.starts_with("-d");
      })) {
    return std::nullopt;
  }
  WritableFileSystem& fs = io.fs;
  // Why plain Ninja does not answer, for FASTCUDA_VERBOSE: a no-op that takes the long way.
  auto long_way = [&](const std::string& why) -> std::optional<int> {
    ComplainIfVerbose(io.environment, "the no-op check goes the long way: " + why);
    return std::nullopt;
  };
  std::optional<NoopCheck> check = ParseNoopCheck(fs.Read(NoopCheckPath(out_dir)).value_or(""));
  if (!check) return long_way("its steps read files that Ninja's deps log does not name");
  std::string_view regenerated;  // what the regeneration printed where it ran (CMake again)
  ProcessResult regeneration;
  if (check->regeneration == ManifestRegeneration::kAlways) {
    regeneration = RegenerateManifest(arguments, ninja, io);
    regenerated = regeneration.stdout_text;
    if (regeneration.exit_code != 0) {
      std::cout << regenerated << std::flush;
      return regeneration.exit_code;
    }
  }
  if (!CopyUpToDate(arguments, *check, fs)) {
    // The build that follows says whether it has work.
    if (regenerated.ends_with(kNothingToDo)) regenerated.remove_suffix(kNothingToDo.size());
    std::cout << regenerated << std::flush;
    if (check->regeneration == ManifestRegeneration::kAlways)
      HandRegenerationRecordsOver(arguments, GraphNinjaLogPath(out_dir, fs), fs);
    return long_way("the generator's manifest is newer than FastCuda's copy");
  }
  if (std::optional<std::string> changed = SourceChangedSinceRead(out_dir, arguments.dir, fs))
    return long_way(*changed + " changed (its ctime) after a step read it");
  ProcessSpec dry_run = ninja;
  dry_run.argv = {ninja.argv.front(), "-C", arguments.dir, "-f", InRewriteDir(kNoopProbeName), "-n"};
  dry_run.argv.insert(dry_run.argv.end(), arguments.passed_on.begin(), arguments.passed_on.end());
  if (command_line.targets.empty()) dry_run.argv.push_back(kNoopDefaultsTarget);
  if (check->regeneration == ManifestRegeneration::kChecked) dry_run.argv.push_back(arguments.manifest);
  dry_run.capture_output = true;
  ProcessResult result = io.runner.Run(dry_run);
  if (result.exit_code != 0 || !result.stdout_text.ends_with(kNothingToDo))
    return long_way("plain Ninja's dry run finds work: " + result.stdout_text.substr(0, 200));
  std::cout << result.stdout_text << std::flush;
  std::cerr << result.stderr_text << std::flush;
  return 0;
}

}  // namespace fastcuda

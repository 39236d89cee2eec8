#include "src/cli/ninja_rewrite.h"

#include <algorithm>
#include <filesystem>
#include <iostream>
#include <unordered_set>

#include "ninja-gen/manifest_parser.h"
#include "ninja-gen/manifest_rewrite.h"
#include "ninja-gen/ninja_writer.h"
#include "src/base/directory_file_system.h"
#include "src/base/dryrun_runner.h"
#include "src/base/ninja_jobs.h"
#include "src/base/overlay_file_system.h"
#include "src/base/shell_words.h"
#include "src/cli/build_command.h"
#include "src/cli/commands.h"
#include "src/cli/noop_check.h"
#include "src/graph/whole_call_cache.h"
#include "src/nvcc/nvcc_options.h"
#include "src/nvcc/step.h"
#include "src/plan/graph_dir.h"
#include "src/plan/toolchain_programs.h"

namespace fastcuda {
namespace {

/// Ninja's log of the manifest: in its `builddir`, else where it runs.
std::string NinjaLogOf(const Manifest& manifest, const std::string& dir) {
  std::string builddir = LookupScopeVariable(manifest, 0, "builddir");
  return NinjaLogPath(builddir.empty() ? dir : ResolvePath(dir, builddir));
}

/// What the top file's copy gets at its end: the steps, the `defaults`
/// (where FastCuda names them), and the edge through which Ninja rewrites
/// the copy whenever a file it came from changes.
std::string AppendedText(const Manifest& manifest, const NinjaArguments& arguments,
                         const std::vector<std::string>& inputs, bool has_steps,
                         const std::vector<std::string>& defaults) {
  std::string text =
      "# fastcuda ninja: the steps of the nvcc edges cut out above, and this file's regeneration\n";
  if (has_steps) text += "subninja " + EscapeNinjaPath(InRewriteDir("steps.ninja")) + "\n";
  NinjaWriter regeneration;
  if (!defaults.empty()) regeneration.Default(defaults);
  regeneration.Rule(
      {"FASTCUDA_REWRITE_MANIFEST",
       {{"command", EscapeNinjaValue(JoinShellWords({SelfExecutable(), "ninja", kRewriteFlag, "-C",
                                                     arguments.dir, "-f", arguments.manifest}))},
        {"description", "Rewriting " + arguments.manifest + " for fastcuda ninja"},
        {"generator", "1"}}});
  NinjaBuild build;
  build.outputs = {InRewriteDir("build.ninja")};
  build.rule = "FASTCUDA_REWRITE_MANIFEST";
  for (const ManifestFile& file : manifest.files) build.implicit_inputs.push_back(file.path);
  build.implicit_inputs.insert(build.implicit_inputs.end(), inputs.begin(), inputs.end());
  regeneration.Build(build);
  return text + regeneration.text();
}

/// The first outputs of `edges` (indices into `manifest`'s) that what Ninja
/// builds by default does not need.
std::set<std::string> NotByDefault(const Manifest& manifest, const std::set<size_t>& edges) {
  std::unordered_set<std::string> needed = Needed(manifest, DefaultTargets(manifest));
  std::set<std::string> not_needed;
  for (size_t i : edges) {
    if (!needed.contains(manifest.edges[i].outputs.front()))
      not_needed.insert(manifest.edges[i].outputs.front());
  }
  return not_needed;
}

/// The objects that both the cut edges of `manifest` (plain ninja) and the
/// steps of `steps` (fastcuda ninja) write.
std::vector<SharedObject> SharedObjectsOf(const Manifest& manifest, const std::set<size_t>& cut_edges,
                                          const std::set<std::string>& not_by_default,
                                          const Manifest& steps) {
  std::vector<SharedObject> objects;
  if (cut_edges.empty()) return objects;
  std::map<std::string, size_t> first_reader;  // Ninja's `SOURCE^`: the first edge that reads SOURCE
  for (size_t i = 0; i < manifest.edges.size(); ++i) {
    const ManifestEdge& edge = manifest.edges[i];
    for (const auto* paths : {&edge.inputs, &edge.implicit_inputs, &edge.order_only_inputs}) {
      for (const std::string& path : *paths) first_reader.emplace(path, i);
    }
  }
  std::map<std::string, size_t> edge_of_output;
  for (size_t i = 0; i < steps.edges.size(); ++i) {
    for (const std::string& output : steps.edges[i].outputs) edge_of_output[output] = i;
  }
  for (size_t cut : cut_edges) {
    const ManifestEdge& edge = manifest.edges[cut];
    auto step = edge_of_output.find(edge.outputs.front());
    if (step == edge_of_output.end()) continue;
    objects.push_back(HashSharedObject(edge.outputs.front(), EvaluateEdgeVariable(manifest, edge, "command"),
                                       EvaluateEdgeVariable(steps, steps.edges[step->second], "command")));
    objects.back().by_default = !not_by_default.contains(edge.outputs.front());
    if (first_reader.at(edge.inputs.front()) == cut) objects.back().source = edge.inputs.front();
  }
  return objects;
}

/// Takes fastcuda itself out of a launcher prefix
/// (CMAKE_CUDA_COMPILER_LAUNCHER=fastcuda): the steps are what it would run.
void DropFastcudaLauncher(std::vector<std::string>& launcher) {
  std::erase_if(launcher,
                [](const std::string& word) { return std::filesystem::path(word).filename() == "fastcuda"; });
}

}  // namespace

NinjaArguments ParseNinjaArguments(const std::vector<std::string>& args) {
  NinjaArguments parsed;
  std::string dir;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    auto value = [&] {
      if (i + 1 >= args.size()) throw std::invalid_argument(arg + " needs a value");
      return args[++i];
    };
    if (arg == "-t" || arg == "--") {  // a tool's or the targets' words follow, all Ninja's
      parsed.passed_on.insert(parsed.passed_on.end(), args.begin() + i, args.end());
      break;
    }
    if (arg == "-C") dir = value();
    else if (arg.starts_with("-C")) dir = arg.substr(2);
    else if (arg == "-f") parsed.manifest = value();
    else if (arg.starts_with("-f")) parsed.manifest = arg.substr(2);
    else if (arg == kRewriteFlag) parsed.rewrite_only = true;
    else parsed.passed_on.push_back(arg);
  }
  parsed.dir = std::filesystem::absolute(dir.empty() ? "." : dir).lexically_normal().string();
  if (parsed.dir.size() > 1 && parsed.dir.back() == '/') parsed.dir.pop_back();
  return parsed;
}

GenOptions PartOptions(const NinjaArguments& arguments,
                       const std::map<std::string, std::string>& environment) {
  GenOptions options = DefaultGenOptions(environment);
  options.out_dir = RewriteDir(arguments.dir);
  return options;
}

std::string RewriteKey(const NinjaArguments& arguments, const GenOptions& options,
                       const std::map<std::string, std::string>& environment) {
  return JoinShellWords({arguments.manifest, SelfExecutable()}) + "\n" + GenerationKey(options, environment);
}

NvccEdge NvccEdgeOf(const Manifest& manifest, const ManifestEdge& edge, const std::string& dir) {
  if (edge.rule == kPhonyRule) return {std::nullopt, ""};
  std::string command = EvaluateEdgeVariable(manifest, edge, "command");
  std::vector<std::string> words;
  try {
    words = SplitShellWords(command);
  } catch (const ShellSyntaxError&) {
    return {std::nullopt, ""};
  }
  std::optional<CompileEntry> entry = NvccEntryOf(words);
  if (!entry) return {std::nullopt, ""};
  auto kept = [](std::string why) { return NvccEdge{std::nullopt, std::move(why)}; };
  if (!EvaluateEdgeVariable(manifest, edge, "rspfile").empty()) return kept("the edge has a response file");
  std::vector<std::string> args(entry->nvcc.begin() + 1, entry->nvcc.end());
  if (std::optional<std::string> why = ScanNvccArgs(args).fallback_reason) return kept(*why);
  // A device link reads objects: nvcc run whole would name no headers it
  // read, and its edge would run in every build.
  if (HasFlag(entry->nvcc, "-dlink") || HasFlag(entry->nvcc, "--device-link"))
    return kept("a device link compiles no source");
  if (HasShellSyntax(command)) return kept("its command has shell syntax besides words");
  if (edge.outputs.size() != 1 || !edge.implicit_outputs.empty() || !edge.validations.empty()) {
    return kept("the edge has outputs besides one object");
  }
  if (edge.inputs.size() != 1) return kept("the edge has no single source");
  std::string deps = EvaluateEdgeVariable(manifest, edge, "deps");
  if (!deps.empty() && deps != "gcc") return kept("deps = " + deps);
  DropFastcudaLauncher(entry->launcher);
  entry->directory = dir;
  entry->file = edge.inputs.front();
  entry->output = edge.outputs.front();
  entry->implicit_inputs = edge.implicit_inputs;
  entry->order_only_inputs = edge.order_only_inputs;
  entry->ninja_command = command;
  entry->ninja_reads_depfile =
      deps == "gcc" && !EvaluateEdgeVariable(manifest, edge, "depfile", EdgePathQuoting::kVerbatim).empty();
  return {std::move(entry), ""};
}

PlannedRewrite PlanRewrite(const Manifest& manifest, const NinjaArguments& arguments, const CommandIo& io) {
  CompileDatabase database;
  ManifestCut cut;
  for (size_t i = 0; i < manifest.edges.size(); ++i) {
    NvccEdge nvcc = NvccEdgeOf(manifest, manifest.edges[i], arguments.dir);
    if (nvcc.entry) {
      database.entries.push_back(std::move(*nvcc.entry));
      cut.edges.insert(i);
    } else if (!nvcc.why_kept.empty()) {
      ComplainIfVerbose(io.environment,
                        "nvcc runs whole for " + manifest.edges[i].outputs.front() + ": " + nvcc.why_kept);
    }
  }
  // Without `default` statements Ninja builds every file that no edge
  // reads, which would be a cached TU's intermediates too (the edges that
  // read them name them in dyndep files only): the copy names the files
  // the generator's manifest meant, and the steps add the ladder's rungs.
  std::vector<std::string> defaults;
  if (manifest.defaults.empty() &&
      std::any_of(database.entries.begin(), database.entries.end(),
                  [](const CompileEntry& entry) { return IsWholeCallCache(entry.launcher); })) {
    defaults = RootTargets(manifest);
  }
  const std::set<std::string> not_by_default = NotByDefault(manifest, cut.edges);
  GenOptions options = PartOptions(arguments, io.environment);
  PlannedRewrite rewrite;
  Generation& generation = rewrite.generation;
  if (!database.entries.empty()) {
    ManifestPart part{arguments.dir, NinjaLogOf(manifest, arguments.dir),
                      !manifest.defaults.empty() || !defaults.empty(), not_by_default,
                      NinjaMinorVersion(io.runner, NinjaProgram(io.environment)) >= 13};
    generation = GenerateForEntries(std::move(database), options, LoadGenerationContext(options, io),
                                    NvccDryrunRunner(io.runner, io.environment), io.fs, part);
  }
  cut.top = InRewriteDir("build.ninja");
  // A `default` naming an nvcc edge's output would precede the steps that
  // define it: it moves after them.
  std::unordered_set<std::string> cut_outputs;
  for (size_t i : cut.edges) {
    for (const auto* paths : {&manifest.edges[i].outputs, &manifest.edges[i].implicit_outputs}) {
      cut_outputs.insert(paths->begin(), paths->end());
    }
  }
  for (size_t i = 0; i < manifest.defaults.size(); ++i) {
    const std::vector<std::string>& targets = manifest.defaults[i].targets;
    if (std::none_of(targets.begin(), targets.end(),
                     [&](const std::string& t) { return cut_outputs.contains(t); })) {
      continue;
    }
    cut.defaults.insert(i);
    defaults.insert(defaults.end(), targets.begin(), targets.end());
  }
  // No lookup pass after a rewrite that has no nvcc edge left.
  if (cut.edges.empty()) generation.files[LookupPassPath(options.out_dir)] = "";
  cut.copies_dir = InRewriteDir("manifest");
  cut.appended = AppendedText(manifest, arguments, generation.inputs, !cut.edges.empty(), defaults);
  for (const auto& [path, text] : CutManifest(manifest, cut)) {
    rewrite.copies[ResolvePath(arguments.dir, path)] = text;
  }
  rewrite.top = ResolvePath(arguments.dir, cut.top);
  // The steps as planned, not as a read of what was written would find them.
  if (!cut.edges.empty()) {
    const Manifest steps =
        ReadManifest(OverlayFileSystem(generation.files, io.fs), StepsManifestPath(options.out_dir));
    rewrite.shared_objects = SharedObjectsOf(manifest, cut.edges, not_by_default, steps);
  }
  rewrite.key = RewriteKey(arguments, options, io.environment);
  rewrite.ninja_log = NinjaLogOf(manifest, arguments.dir);
  if (generation.ninja_sees_every_read) {
    const NoopCheck check = NoopCheckOf(manifest, arguments, generation.inputs, io.fs);
    std::optional<std::string> regeneration = NoopRegenerationText(manifest, arguments);
    if (check.regeneration != ManifestRegeneration::kAlways || regeneration) {
      rewrite.noop_check = FormatNoopCheck(check);
      rewrite.noop_probes[kNoopProbeName] = NoopProbeText(manifest, arguments);
      if (check.regeneration == ManifestRegeneration::kAlways)
        rewrite.noop_probes[kNoopRegenerationName] = *regeneration;
    }
  }
  return rewrite;
}

void WriteRewrite(const PlannedRewrite& rewrite, const std::string& out_dir, WritableFileSystem& fs) {
  WriteGeneration(rewrite.generation, out_dir, fs);
  for (const auto& [path, text] : rewrite.copies) {
    // The top copy is always written: Ninja, having rerun the edge that
    // writes it, must find it newer than what it was made from.
    if (path == rewrite.top) fs.Write(path, text);
    else WriteIfChanged(fs, path, text);
  }
  SaveSharedObjects(rewrite.shared_objects, out_dir, fs);
  fs.Symlink(SelfExecutable(), SelfAsNinjaPath(out_dir));
  fs.Write(RewriteKeyPath(out_dir), rewrite.key);
  fs.Write(NinjaLogSourcePath(out_dir), rewrite.ninja_log);
  for (const char* name : {kNoopProbeName, kNoopRegenerationName}) {
    auto probe = rewrite.noop_probes.find(name);
    if (probe == rewrite.noop_probes.end()) fs.Remove(out_dir + "/" + name);
    else WriteIfChanged(fs, out_dir + "/" + probe->first, probe->second);
  }
  if (rewrite.noop_check.empty()) fs.Remove(NoopCheckPath(out_dir));
  else fs.Write(NoopCheckPath(out_dir), rewrite.noop_check);
}

int RewriteManifest(const NinjaArguments& arguments, const CommandIo& io, bool report) {
  Manifest manifest;
  try {
    manifest = ReadManifest(DirectoryFileSystem(io.fs, arguments.dir), arguments.manifest);
  } catch (const ManifestError& error) {
    Complain(error.what());
    return 2;
  }
  PlannedRewrite rewrite = PlanRewrite(manifest, arguments, io);
  if (report) std::cerr << rewrite.generation.report;
  WriteRewrite(rewrite, PartOptions(arguments, io.environment).out_dir, io.fs);
  return 0;
}

bool RewriteNeeded(const NinjaArguments& arguments, const CommandIo& io) {
  GenOptions options = PartOptions(arguments, io.environment);
  const FileSystem& disk = io.fs;
  return !disk.IsFile(GlobalManifestPath(options.out_dir)) ||
         disk.Read(RewriteKeyPath(options.out_dir)) != RewriteKey(arguments, options, io.environment) ||
         !ChangedPrograms(disk.Read(ToolchainProgramsPath(options.out_dir)).value_or(""),
                          NvccDryrunRunner(io.runner, io.environment))
              .empty() ||
         HistoryArrived(options.out_dir, GraphNinjaLogPath(options.out_dir, disk), disk);
}

}  // namespace fastcuda

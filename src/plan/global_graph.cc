#include "src/plan/global_graph.h"

#include <filesystem>
#include <set>

#include "src/base/parallel_for.h"
#include "src/base/process.h"
#include "src/base/shell_words.h"
#include "src/base/stable_hash.h"
#include "src/base/toolchain_environment.h"
#include "src/graph/whole_call_cache.h"
#include "src/nvcc/host_compiler.h"
#include "src/nvcc/nvcc_options.h"
#include "src/nvcc/transcript_template.h"
#include "src/plan/graph_dir.h"
#include "src/plan/nvcc_call.h"
#include "src/plan/toolchain_programs.h"

namespace fastcuda {
namespace {

/// One entry as the planner sees it.
struct PlannedEntry {
  const CompileEntry* entry = nullptr;
  NvccInvocation invocation;
  TuNames names;
  std::string program;    ///< the nvcc binary, resolved
  std::string shape;      ///< entries with equal shapes share a dryrun
  std::string cache_key;  ///< this entry's own dryrun
  /// ToolchainEnvironment with the host compiler's identity: the steps'.
  std::map<std::string, std::string> step_environment;
  /// For nvcc run whole: the files it reads, and how it names the headers.
  std::vector<std::string> input_words;
  WholeNvccDepfile whole_depfile;
};

/// The arguments as nvcc sees them (response files expanded), with the
/// source and output words, and the files named after the output (its
/// depfile), replaced by placeholders.
std::string ShapeOf(const CompileEntry& entry, const std::vector<std::string>& effective_args,
                    const TuNames& names, const std::string& identity) {
  std::vector<std::string> words{identity, entry.directory};
  for (const std::string& word : effective_args) {
    if (word == names.source) words.push_back("\x01SRC");
    else if (NamedAfter(word, names.output)) words.push_back("\x01OUT" + word.substr(names.output.size()));
    else words.push_back(word);
  }
  return JoinShellWords(words);
}

/// The word of `args` that names `path` (resolved in `directory`), or `path`
/// itself: CMake 3.26 and later write an entry's `output` absolute, its
/// `-o` relative.
std::string WordNaming(const std::vector<std::string>& args, const std::string& directory,
                       const std::string& path) {
  std::string absolute = ResolvePath(directory, path);
  for (const std::string& word : args) {
    if (word == path || (!word.empty() && word[0] != '-' && ResolvePath(directory, word) == absolute)) {
      return word;
    }
  }
  return path;
}

PlannedEntry Plan(const CompileEntry& entry, ProgramIdentifier& programs,
                  const std::map<std::string, std::string>& ambient,
                  const std::map<std::string, std::string>& toolchain, const std::string& environment,
                  const FileSystem& fs) {
  PlannedEntry planned;
  planned.entry = &entry;
  std::vector<std::string> args(entry.nvcc.begin() + 1, entry.nvcc.end());
  std::vector<std::string> effective = EffectiveNvccArgsIn(args, ambient, entry.directory, fs);
  planned.invocation = ScanNvccArgs(effective);
  planned.input_words = NvccInputWords(effective);
  planned.whole_depfile = WholeNvccDepfileOf(effective);
  planned.names.source = WordNaming(args, entry.directory, entry.file);
  planned.names.absolute_source = ResolvePath(entry.directory, entry.file);
  planned.names.output = WordNaming(args, entry.directory, entry.output);
  const ProgramIdentity nvcc = programs.Identify(entry.nvcc.front());
  const ProgramIdentity host =
      programs.Identify(HostCompilerOf(planned.invocation.compiler_bindir, ambient, entry.directory, fs));
  planned.program = nvcc.path;
  planned.step_environment = WithHostCompiler(toolchain, host);
  // What nvcc says depends on the host compiler behind its name (cudafe++'s
  // --gnu_version or --clang_version, its predefined macros).
  std::string identity = nvcc.path + "\n" + nvcc.stamp + "\n" + IdentityKey(host);
  planned.shape = ShapeOf(entry, effective, planned.names, identity) + "\n" + environment;
  planned.cache_key = StableHashHex(
      identity + "\n" + entry.directory + "\n" + JoinShellWords(effective) + "\n" + environment, 16);
  return planned;
}

/// Runs the dryruns of `wanted` entries that the cache lacks, `jobs` at a time.
/// The texts are kept with their PATH going on with the steps' own
/// (WithInheritedPath): `ambient_path` is the one nvcc ran with.
void RunDryruns(const std::vector<const PlannedEntry*>& wanted, unsigned jobs, DryrunCache& cache,
                const DryrunRunner& runner, const std::string& ambient_path, GlobalPlan& plan) {
  std::vector<const PlannedEntry*> missing;
  for (const PlannedEntry* entry : wanted) {
    if (cache.count(entry->cache_key)) ++plan.dryruns_cached;
    else missing.push_back(entry);
  }
  std::vector<std::optional<std::string>> texts(missing.size());
  ParallelFor(missing.size(), jobs, [&](size_t i) {
    texts[i] = runner.Dryrun(missing[i]->entry->nvcc, missing[i]->entry->directory);
  });
  for (size_t i = 0; i < missing.size(); ++i) {
    if (texts[i]) cache[missing[i]->cache_key] = WithInheritedPath(*texts[i], ambient_path);
  }
  plan.dryruns_run += missing.size();
}

/// A graph of one step that runs the entry's nvcc command as it is. It
/// reads its input files (the source, which may not exist yet, and those
/// that exist: objects, libraries) and response files, and the headers of a
/// depfile where nvcc can write one (else it runs in every build).
StepGraph WholeNvccGraph(const PlannedEntry& planned, const std::string& work_dir, const FileSystem& fs) {
  const std::string& dir = planned.entry->directory;
  StepGraph graph;
  GraphStep step;
  step.kind = StepKind::kUnknown;
  step.argv = planned.entry->launcher;
  step.argv.insert(step.argv.end(), planned.entry->nvcc.begin(), planned.entry->nvcc.end());
  step.outputs = {planned.entry->output};
  for (const std::string& word : planned.input_words) {
    if (ResolvePath(dir, word) == ResolvePath(dir, planned.entry->file) ||
        fs.IsFile(ResolvePath(dir, word))) {
      step.inputs.push_back(word);
    }
  }
  std::vector<std::string> args(planned.entry->nvcc.begin() + 1, planned.entry->nvcc.end());
  for (const std::string& file : ResponseFiles(args, dir)) step.inputs.push_back(file);
  using Source = WholeNvccDepfile::Source;
  const WholeNvccDepfile& depfile = planned.whole_depfile;
  if (depfile.source == Source::kNone) {
    step.reruns_always = true;
  } else {
    // Ninja reads FastCuda's copy, made absolute: the user's stays as nvcc wrote it.
    step.depfile = work_dir + "/nvcc.d";
    step.outputs.push_back(step.depfile);  // so that Ninja makes its directory
    if (depfile.source == Source::kAsked) step.argv.insert(step.argv.end(), {"-MD", "-MF", step.depfile});
    else step.depfile_from = depfile.users;
  }
  graph.steps.push_back(step);
  // nvcc reads them itself: a change reruns it (nvcc.env is its input).
  graph.environment = planned.step_environment;
  graph.cwd = planned.entry->directory;
  graph.work_dir = work_dir;
  graph.source = planned.entry->file;
  graph.final_outputs = {planned.entry->output};
  return graph;
}

}  // namespace

GlobalPlan PlanCompileDatabase(const CompileDatabase& database, const GlobalPlanOptions& options,
                               DryrunCache& cache, const DryrunRunner& runner, const FileSystem& disk) {
  GlobalPlan plan;
  CachingFileSystem fs(disk);
  ProgramIdentifier identifier(runner);
  std::map<std::string, std::vector<size_t>> shapes;  // shape -> entry indexes
  std::set<std::string> programs, response_files;
  const std::map<std::string, std::string> toolchain = ToolchainEnvironment(options.environment);
  const std::string environment = EnvironmentKey(toolchain);
  const std::string ambient_path = EnvironmentValue(options.environment, "PATH");
  std::vector<PlannedEntry> entries(database.entries.size());
  ParallelFor(entries.size(), options.jobs, [&](size_t i) {
    const CompileEntry& entry = database.entries[i];
    entries[i] = Plan(entry, identifier, options.environment, toolchain, environment, fs);
  });
  for (size_t i = 0; i < entries.size(); ++i) {
    if (!entries[i].invocation.fallback_reason) shapes[entries[i].shape].push_back(i);
    programs.insert(entries[i].program);
    for (const std::string& file : ResponseFiles(database.entries[i].nvcc, database.entries[i].directory)) {
      if (fs.IsFile(file)) response_files.insert(file);
    }
  }
  plan.response_files.assign(response_files.begin(), response_files.end());
  plan.nvcc_programs.assign(programs.begin(), programs.end());
  plan.shapes = shapes.size();

  // Phase 1: two representatives of each shape; phase 2: every entry of a
  // shape whose substitution the representatives did not confirm.
  std::vector<const PlannedEntry*> wanted;
  for (const auto& [shape, members] : shapes) {
    for (size_t i = 0; i < members.size() && i < 2; ++i) wanted.push_back(&entries[members[i]]);
  }
  RunDryruns(wanted, options.jobs, cache, runner, ambient_path, plan);
  std::map<std::string, std::optional<Transcript>> templates;  // shape -> verified template
  wanted.clear();
  for (const auto& [shape, members] : shapes) {
    const PlannedEntry& first = entries[members.front()];
    std::optional<Transcript> verified;
    if (members.size() >= 2 && cache.count(first.cache_key) && cache.count(entries[members[1]].cache_key)) {
      const PlannedEntry& second = entries[members[1]];
      Transcript base = ParseTranscript(cache.at(first.cache_key), LookupIn(options.environment));
      if (SameCommands(InstantiateTranscript(base, first.names, second.names),
                       ParseTranscript(cache.at(second.cache_key), LookupIn(options.environment)))) {
        verified = base;
      }
    }
    if (!verified) {  // the representatives have had their dryruns already
      for (size_t i = 2; i < members.size(); ++i) wanted.push_back(&entries[members[i]]);
    }
    templates[shape] = verified;
  }
  RunDryruns(wanted, options.jobs, cache, runner, ambient_path, plan);

  std::vector<std::string> whole_nvcc_reasons(entries.size());  // empty: split
  plan.graphs.resize(entries.size());
  ParallelFor(entries.size(), options.jobs, [&](size_t i) {
    const PlannedEntry& planned = entries[i];
    std::string work_dir =
        WorkDirFor(TuRoot(options.out_dir), ResolvePath(planned.entry->directory, planned.entry->output));
    std::string why = planned.invocation.fallback_reason.value_or("");
    if (why.empty()) {
      const std::optional<Transcript>& base = templates.at(planned.shape);
      const PlannedEntry& first = entries[shapes.at(planned.shape).front()];
      std::optional<Transcript> transcript;
      if (base) {
        transcript = InstantiateTranscript(*base, first.names, planned.names);
      } else if (cache.count(planned.cache_key)) {
        transcript = ParseTranscript(cache.at(planned.cache_key), LookupIn(options.environment));
      }
      StepLaunchers launchers = options.launchers;
      launchers.nvcc = planned.entry->launcher;
      try {
        if (!transcript) throw UnsupportedTranscript("nvcc --dryrun failed");
        plan.graphs[i] = BuildStepGraph(
            *transcript,
            {planned.entry->directory, work_dir, planned.invocation.depfile, options.keep_depfiles, launchers,
             options.modes, planned.step_environment, planned.names.source},
            fs);
        IdentifyPathPrograms(plan.graphs[i], identifier, fs);
        return;
      } catch (const UnsupportedTranscript& unsupported) {
        why = unsupported.what();
      }
    }
    whole_nvcc_reasons[i] = why;
    plan.graphs[i] = WholeNvccGraph(planned, work_dir, fs);
    IdentifyPathPrograms(plan.graphs[i], identifier, fs);
  });
  plan.programs = identifier.Identified();
  std::set<std::string> used_keys;
  for (size_t i = 0; i < entries.size(); ++i) {
    const CompileEntry& entry = database.entries[i];
    plan.graphs[i].implicit_inputs = entry.implicit_inputs;
    plan.graphs[i].order_only_inputs = entry.order_only_inputs;
    if (entry.ninja_reads_depfile && !HandDepfileToNinja(plan.graphs[i]))
      HandEmptyDepfileToNinja(plan.graphs[i]);
    if (whole_nvcc_reasons[i].empty()) AddWholeCallCache(plan.graphs[i], entry.launcher, entry.nvcc);
    const PlannedEntry& planned = entries[i];
    if (!whole_nvcc_reasons[i].empty()) {
      std::string every_build =
          plan.graphs[i].steps.front().reruns_always ? " (in every build: it can write no depfile)" : "";
      plan.whole_nvcc_entries.push_back(planned.entry->file + ": " + whole_nvcc_reasons[i] + every_build);
    }
    if (planned.invocation.fallback_reason) continue;
    used_keys.insert(entries[shapes.at(planned.shape).front()].cache_key);
    if (!templates.at(planned.shape)) used_keys.insert(planned.cache_key);
  }
  for (const auto& [shape, members] : shapes) {
    if (members.size() >= 2) used_keys.insert(entries[members[1]].cache_key);
  }
  std::erase_if(cache, [&](const auto& item) { return !used_keys.count(item.first); });
  return plan;
}

}  // namespace fastcuda

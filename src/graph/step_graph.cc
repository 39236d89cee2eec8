#include "src/graph/step_graph.h"

#include <re2/re2.h>

#include <algorithm>
#include <filesystem>
#include <set>
#include <stdexcept>
#include <string_view>

#include "src/base/stable_hash.h"
#include "src/graph/early_host.h"
#include "src/graph/fatbin_split.h"
#include "src/nvcc/indirect_inputs.h"
#include "src/nvcc/ptx_line_table.h"
#include "src/nvcc/temp_files.h"

namespace fastcuda {
namespace {

/// The paths a word may name: the word itself and the pieces of
/// `a=b,file=c` and `-DX="path"` forms, unquoted.
std::vector<std::string> PathCandidates(const std::string& word) {
  static const RE2 piece(R"re("?([^=,"]+)"?)re", RE2::Latin1);
  std::vector<std::string> candidates{word};
  re2::StringPiece rest(word);
  std::string value;
  while (!rest.empty()) {
    if (RE2::Consume(&rest, piece, &value)) candidates.push_back(value);
    else rest.remove_prefix(1);
  }
  return candidates;
}

/// Values that name files a step does not read although they look like it:
/// the future fatbin.c that cicc's stub will include, and the source's name
/// as cudafe++ and cicc print it in messages.
std::set<std::string> NotInputs(const Step& step) {
  std::vector<std::string> names =
      FlagValues(step.argv, {"--include_file_name", "--orig_src_file_name", "--orig_src_path_name"});
  if (step.kind == StepKind::kCudafe) {
    std::vector<std::string> stub = FlagValues(step.argv, {"--stub_file_name"});
    names.insert(names.end(), stub.begin(), stub.end());
  }
  names.insert(names.end(), step.outputs.begin(), step.outputs.end());
  return {names.begin(), names.end()};
}

/// Options and bare words (numbers, names) are not worth a stat: an input
/// file has a directory or an extension.
bool MayBePath(const std::string& candidate) {
  return !candidate.empty() && candidate[0] != '-' && candidate.find_first_of("./") != std::string::npos;
}

bool IsGeneratedInclude(const std::string& path) {
  return path.ends_with(".stub.c") || path.ends_with(".fatbin.c");
}

class GraphBuilder {
 public:
  GraphBuilder(const StepGraphOptions& options, const FileSystem& fs, bool keep_sequence_numbers)
      : options_(options), fs_(fs), namer_(options.work_dir, keep_sequence_numbers) {}

  /// Returns false if two steps would write the same file.
  bool Build(const Transcript& transcript, StepGraph& graph);

 private:
  Step Rename(const TranscriptCommand& command) const;
  void FindInputs(GraphStep& step) const;
  /// True for the TU's source (StepGraphOptions::source), however named.
  bool IsSource(const std::string& candidate) const;
  void AddHeaderDepfile(GraphStep& step) const;
  /// ptxas with line information: a depfile of the sources its line table
  /// names (GraphStep::line_table_ptx).
  void AddLineTableDepfile(GraphStep& step) const;
  /// FASTCUDA_MODULE_ID=own: the step that would make the module id reads
  /// it instead, from a step of its own that comes first.
  bool TakeOverModuleId(StepGraph& graph, GraphStep& step);
  /// FASTCUDA_SPLIT_COMPILE: threads for cicc and ptxas, fixed in the
  /// argv or left to `fastcuda step` (auto).
  void SplitCompilation(GraphStep& step, int arch_chains) const;
  /// Appends the step behind its launcher, as the early host plan (if any)
  /// rewrites it.
  bool AddWithLauncher(StepGraph& graph, GraphStep step);
  GraphStep UserDepfileStep(const std::string& path, const StepGraph& graph) const;
  void Link(StepGraph& graph, size_t index);
  /// Appends a step; false if it writes a file another step writes.
  bool Add(StepGraph& graph, GraphStep step);

  const StepGraphOptions& options_;
  const FileSystem& fs_;
  TempFileNamer namer_;
  std::map<std::string, size_t> producer_;  ///< file -> index of the step writing it
  std::optional<size_t> barrier_;           ///< last step of unknown effect
  bool user_wants_depfile_ = false;         ///< nvcc was asked for a depfile
  std::optional<EarlyHost> early_host_;     ///< FASTCUDA_EARLY_HOST=on, where the TU allows it
};

Step GraphBuilder::Rename(const TranscriptCommand& original) const {
  TranscriptCommand command = original;
  for (std::string& word : command.argv) word = namer_.Rename(word);
  command.depfile = namer_.Rename(command.depfile);
  std::vector<Redirection> kept;
  for (const Redirection& redirection : command.redirections) {
    // nvcc --threads captures each step's output in temporaries; the build
    // system shows it instead.
    if (TempFileNamer::MentionsTemp(redirection.file)) continue;
    throw UnsupportedTranscript("a sub-command redirects to " + redirection.file);
  }
  command.redirections = kept;
  return ClassifyCommand(command);
}

void GraphBuilder::FindInputs(GraphStep& step) const {
  std::set<std::string> skip = NotInputs(step);
  std::set<std::string> seen;
  for (size_t i = 1; i < step.argv.size(); ++i) {
    for (const std::string& candidate : PathCandidates(step.argv[i])) {
      if (skip.count(candidate) || seen.count(candidate) || !MayBePath(candidate)) continue;
      bool produced = producer_.count(candidate) > 0;
      bool is_work_file = candidate.rfind(options_.work_dir + "/", 0) == 0;
      if (produced || IsSource(candidate) ||
          (!is_work_file && fs_.IsFile(ResolvePath(options_.cwd, candidate)))) {
        step.inputs.push_back(candidate);
        seen.insert(candidate);
      }
    }
  }
  for (const std::string& file : IndirectInputs(step, options_.cwd, fs_)) {
    if (seen.insert(file).second) step.inputs.push_back(file);
  }
  std::string contents;
  for (const std::string& file : ResponseFilesWithin(step.argv, options_.cwd, fs_)) {
    contents += file + '\n' + fs_.Read(file).value_or("") + '\0';
  }
  if (!contents.empty()) step.response_key = StableHashHex(contents, 16);
}

bool GraphBuilder::IsSource(const std::string& candidate) const {
  return !options_.source.empty() &&
         ResolvePath(options_.cwd, candidate) == ResolvePath(options_.cwd, options_.source);
}

void GraphBuilder::AddHeaderDepfile(GraphStep& step) const {
  const bool reads_headers = IsPreprocess(step.kind) || step.compiles_source;
  if (!reads_headers || step.outputs.empty()) return;
  // A host compile writes the user's object: its depfile goes into the work dir.
  step.depfile =
      IsPreprocess(step.kind)
          ? step.outputs.front() + ".d"
          : options_.work_dir + "/" + std::filesystem::path(step.outputs.front()).filename().string() + ".d";
  step.argv.insert(step.argv.end(), {options_.depfile.system_headers ? "-MD" : "-MMD", "-MF", step.depfile});
  if (user_wants_depfile_ && IsPreprocess(step.kind)) step.kept_depfile = step.outputs.front() + ".deps";
}

void GraphBuilder::AddLineTableDepfile(GraphStep& step) const {
  if (step.kind != StepKind::kPtxas || step.outputs.empty() || !WritesLineInformation(step.argv)) return;
  auto ptx = std::find_if(step.inputs.begin(), step.inputs.end(),
                          [](const std::string& input) { return input.ends_with(".ptx"); });
  if (ptx == step.inputs.end()) return;
  step.line_table_ptx = *ptx;
  step.depfile = LineTablePath(options_.work_dir, step) + ".d";
}

GraphStep GraphBuilder::UserDepfileStep(const std::string& path, const StepGraph& graph) const {
  GraphStep step;
  step.kind = StepKind::kFilterDependencies;
  step.outputs = {path};
  for (const GraphStep& earlier : graph.steps) {
    if (!earlier.kept_depfile.empty()) step.inputs.push_back(earlier.kept_depfile);
  }
  return step;
}

void GraphBuilder::Link(StepGraph& graph, size_t index) {
  GraphStep& step = graph.steps[index];
  std::set<size_t> after;
  if (barrier_) after.insert(*barrier_);
  for (const std::string& input : step.inputs) {
    if (auto it = producer_.find(input); it != producer_.end()) after.insert(it->second);
  }
  if (step.kind == StepKind::kHostCompile) {
    // The generated .cudafe1.cpp includes the stub, which includes the
    // fatbin: neither is on the command line.
    for (const auto& [file, producer] : producer_) {
      if (!IsGeneratedInclude(file) || (early_host_ && file == early_host_->real_fatbin_c())) continue;
      after.insert(producer);
      if (std::find(step.inputs.begin(), step.inputs.end(), file) == step.inputs.end()) {
        step.inputs.push_back(file);
      }
    }
  }
  if (step.kind == StepKind::kFatbinStitch ||
      (step.kind == StepKind::kFatbinary && !CompressesOneImage(step))) {
    // A step that writes nothing checks (ptxas on a PTX-only target): as in
    // nvcc, whose call fails when it does, the fatbin that embeds the PTX
    // waits for it. Nothing else depends on it, so it would not run at all.
    // (One image's fatbin need not: the fatbin that joins them does.)
    for (size_t i = 0; i < index; ++i) {
      if (graph.steps[i].outputs.empty()) after.insert(i);
    }
  }
  if (step.kind == StepKind::kFilterDependencies) {
    for (const std::string& input : step.inputs) {
      for (size_t i = 0; i < index; ++i) {
        if (graph.steps[i].kept_depfile == input) after.insert(i);
      }
    }
  }
  if (step.kind == StepKind::kUnknown) {
    // A program we do not know may read or write anything: run it alone.
    for (size_t i = 0; i < index; ++i) after.insert(i);
    barrier_ = index;
  }
  step.after.assign(after.begin(), after.end());
}

bool GraphBuilder::Build(const Transcript& transcript, StepGraph& graph) {
  std::optional<std::string> user_depfile;
  for (const TranscriptCommand& command : transcript.commands) {
    if (command.kind == TranscriptCommand::Kind::kFilterDependencies) {
      user_depfile = command.depfile;
    }
  }
  user_wants_depfile_ = user_depfile.has_value() || options_.keep_depfiles;
  std::vector<Step> renamed;
  for (const TranscriptCommand& command : transcript.commands) renamed.push_back(Rename(command));
  if (options_.modes.early_host) early_host_ = EarlyHost::Plan(renamed);
  if (early_host_ && !Add(graph, early_host_->PlaceholderStep())) return false;
  int arch_chains = static_cast<int>(std::count_if(
      renamed.begin(), renamed.end(), [](const Step& step) { return step.kind == StepKind::kCicc; }));
  for (Step& renamed_step : renamed) {
    GraphStep step;
    static_cast<Step&>(step) = std::move(renamed_step);
    // rm: keep intermediates for the next build. The depfile is written last,
    // from every preprocess step.
    if (step.kind == StepKind::kRemove || step.kind == StepKind::kFilterDependencies) continue;
    if (!TakeOverModuleId(graph, step)) return false;
    SplitCompilation(step, arch_chains);
    FindInputs(step);
    step.never_keep_incbin = step.kind == StepKind::kHostPreprocess || step.kind == StepKind::kCudafe;
    step.compiles_source = step.kind == StepKind::kHostCompile &&
                           std::any_of(step.inputs.begin(), step.inputs.end(),
                                       [&](const std::string& input) { return IsSource(input); });
    AddHeaderDepfile(step);
    AddLineTableDepfile(step);
    if (!AddWithLauncher(graph, std::move(step))) return false;
  }
  return !user_depfile || Add(graph, UserDepfileStep(*user_depfile, graph));
}

bool GraphBuilder::TakeOverModuleId(StepGraph& graph, GraphStep& step) {
  auto flag = std::find(step.argv.begin(), step.argv.end(), "--gen_module_id_file");
  if (options_.modes.module_id != ModuleIdMode::kOwn || flag == step.argv.end()) return true;
  step.argv.erase(flag);
  GraphStep writer;
  writer.kind = StepKind::kModuleId;
  for (const std::string& file : FlagValues(step.argv, {"--module_id_file_name"})) {
    std::erase(step.outputs, file);
    writer.outputs.push_back(file);
  }
  return Add(graph, std::move(writer));  // the id itself comes once the outputs are known
}

void GraphBuilder::SplitCompilation(GraphStep& step, int arch_chains) const {
  const SplitCompile& split = options_.modes.split_compile;
  bool splits = step.kind == StepKind::kCicc || step.kind == StepKind::kPtxas;
  if (!splits || split.mode == SplitCompile::Mode::kOff || HasSplitCompileFlag(step.argv)) return;
  if (split.mode == SplitCompile::Mode::kAuto) {
    step.split_share = std::max(1, arch_chains);  // `fastcuda step` picks the threads
    return;
  }
  std::vector<std::string> flag = SplitCompileFlag(split.threads);
  step.argv.insert(step.argv.end(), flag.begin(), flag.end());
}

/// What cudafe++'s command names as its host source and the stub that includes.
StubInclude StubIncludeOf(const std::vector<std::string>& argv) {
  std::vector<std::string> host_source = FlagValues(argv, {"--gen_c_file_name"});
  std::vector<std::string> stub = FlagValues(argv, {"--stub_file_name"});
  if (host_source.size() != 1 || stub.size() != 1) return {};
  return {host_source.front(), stub.front()};
}

bool GraphBuilder::AddWithLauncher(StepGraph& graph, GraphStep step) {
  std::vector<std::string> launcher = LauncherFor(options_.launchers, step);
  if (step.kind == StepKind::kCudafe && !launcher.empty()) step.stub_include = StubIncludeOf(step.argv);
  std::vector<GraphStep> rewritten;
  if (early_host_) rewritten = early_host_->Rewrite(std::move(step));
  else rewritten.push_back(std::move(step));
  // The launcher runs the first step's program; of a split fatbinary, each
  // image's (the stitch is FastCuda's own work).
  std::vector<GraphStep> steps = SplitFatbinary(std::move(rewritten.front()));
  const bool split = steps.size() > 1;
  for (size_t i = 0; i < steps.size(); ++i) {
    if (split ? !CompressesOneImage(steps[i]) : i > 0) continue;
    steps[i].argv.insert(steps[i].argv.begin(), launcher.begin(), launcher.end());
    steps[i].launcher_words = launcher.size();
  }
  steps.insert(steps.end(), std::make_move_iterator(rewritten.begin() + 1),
               std::make_move_iterator(rewritten.end()));
  for (GraphStep& each : steps) {
    if (!Add(graph, std::move(each))) return false;
  }
  return true;
}

bool GraphBuilder::Add(StepGraph& graph, GraphStep step) {
  graph.steps.push_back(std::move(step));
  Link(graph, graph.steps.size() - 1);
  for (const std::string& output : graph.steps.back().outputs) {
    if (!producer_.emplace(output, graph.steps.size() - 1).second) return false;
  }
  return true;
}

std::string SourceName(const StepGraph& graph) {
  for (const GraphStep& step : graph.steps) {
    std::vector<std::string> names = FlagValues(step.argv, {"--orig_src_file_name"});
    if (!names.empty()) return names.front();
  }
  for (const GraphStep& step : graph.steps) {
    if (!step.inputs.empty()) return step.inputs.front();
  }
  return graph.final_outputs.empty() ? "" : graph.final_outputs.front();
}

/// The source as cudafe++ and cicc name it in full (nvcc hashes this path
/// into its own module id).
std::string SourcePath(const StepGraph& graph) {
  for (const GraphStep& step : graph.steps) {
    std::vector<std::string> paths = FlagValues(step.argv, {"--orig_src_path_name"});
    if (!paths.empty()) return paths.front();
  }
  return ResolvePath(graph.cwd, graph.source);
}

}  // namespace

std::string Landmark(const StepGraph& graph, size_t index) {
  const GraphStep& step = graph.steps[index];
  return step.outputs.empty() ? StampPath(graph, index) : step.outputs.front();
}

std::string StampPath(const StepGraph& graph, size_t step_index) {
  return graph.work_dir + "/step" + std::to_string(step_index) + ".stamp";
}

std::string LineTablePath(const std::string& work_dir, const GraphStep& step) {
  return work_dir + "/" + std::filesystem::path(step.outputs.front()).filename().string() + ".line-table";
}

StepGraph BuildStepGraph(const Transcript& transcript, const StepGraphOptions& options,
                         const FileSystem& fs) {
  StepGraph graph;
  for (bool keep_numbers : {false, true}) {
    graph = StepGraph{};
    if (GraphBuilder(options, fs, keep_numbers).Build(transcript, graph)) break;
    if (keep_numbers) throw UnsupportedTranscript("two sub-commands write the same file");
  }
  if (graph.steps.empty()) throw UnsupportedTranscript("the dryrun runs no sub-command");
  graph.environment = transcript.variables;
  graph.environment.insert(options.toolchain_environment.begin(), options.toolchain_environment.end());
  graph.cwd = options.cwd;
  graph.work_dir = options.work_dir;
  graph.depfile_request = options.depfile;
  for (const GraphStep& step : graph.steps) {
    for (const std::string& output : step.outputs) {
      if (output.rfind(options.work_dir + "/", 0) != 0) graph.final_outputs.push_back(output);
    }
  }
  graph.source = SourceName(graph);
  for (GraphStep& step : graph.steps) {
    if (step.kind == StepKind::kModuleId)
      step.module_id = OwnModuleId(SourcePath(graph), graph.final_outputs);
  }
  return graph;
}

std::optional<size_t> StepWriting(const StepGraph& graph, const std::string& path) {
  for (size_t i = graph.steps.size(); i-- > 0;) {
    const std::vector<std::string>& outputs = graph.steps[i].outputs;
    if (std::find(outputs.begin(), outputs.end(), path) != outputs.end()) return i;
  }
  return std::nullopt;
}

void WaitFor(GraphStep& step, size_t earlier) {
  if (std::find(step.after.begin(), step.after.end(), earlier) == step.after.end())
    step.after.push_back(earlier);
}

bool MoveStep(StepGraph& graph, size_t moved, size_t at) {
  if (at > moved) throw std::logic_error("MoveStep moves a step to an earlier place only");
  const std::vector<size_t>& waits = graph.steps[moved].after;
  if (std::any_of(waits.begin(), waits.end(), [&](size_t before) { return before >= at; })) return false;
  for (GraphStep& step : graph.steps) {
    for (size_t& before : step.after) {
      if (before == moved) before = at;
      else if (before >= at && before < moved) ++before;
    }
  }
  std::rotate(graph.steps.begin() + at, graph.steps.begin() + moved, graph.steps.begin() + moved + 1);
  return true;
}

bool WaitForMovingItBefore(StepGraph& graph, size_t* waiting, size_t* waited) {
  if (*waited > *waiting) {
    if (!MoveStep(graph, *waited, *waiting)) return false;
    *waited = (*waiting)++;
  }
  WaitFor(graph.steps[*waiting], *waited);
  return true;
}

bool HandEmptyDepfileToNinja(StepGraph& graph) {
  auto is_filter = [](const GraphStep& step) { return step.kind == StepKind::kFilterDependencies; };
  if (std::any_of(graph.steps.begin(), graph.steps.end(), is_filter) || graph.final_outputs.empty())
    return false;
  std::optional<size_t> object = StepWriting(graph, graph.final_outputs.front());
  if (!object || RunByFastcuda(graph.steps[*object].kind)) return false;
  graph.steps[*object].ninja_depfile = graph.work_dir + "/ninja-deps.d";
  return true;
}

bool HandDepfileToNinja(StepGraph& graph) {
  auto is_filter = [](const GraphStep& step) { return step.kind == StepKind::kFilterDependencies; };
  auto filter = std::find_if(graph.steps.begin(), graph.steps.end(), is_filter);
  if (filter == graph.steps.end() || graph.final_outputs.empty()) return false;
  std::optional<size_t> object_index = StepWriting(graph, graph.final_outputs.front());
  if (!object_index || RunByFastcuda(graph.steps[*object_index].kind)) return false;
  size_t filter_index = filter - graph.steps.begin();
  // nvcc writes the depfile last; the object's step writes it for Ninja now.
  if (!WaitForMovingItBefore(graph, &*object_index, &filter_index)) return false;
  GraphStep& object = graph.steps[*object_index];
  GraphStep& merge = graph.steps[filter_index];
  object.ninja_depfile = merge.outputs.front();
  object.ninja_depfile_from = graph.work_dir + "/ninja-deps.d";
  merge.outputs = {object.ninja_depfile_from};
  object.inputs.push_back(object.ninja_depfile_from);
  return true;
}

bool NinjaSeesEveryRead(const StepGraph& graph) {
  if (graph.final_outputs.empty()) return false;
  std::optional<size_t> object = StepWriting(graph, graph.final_outputs.front());
  if (!object || graph.steps[*object].ninja_depfile_from.empty()) return false;
  // What the steps read that Ninja knows: the generator's edge names it, or a step writes it.
  std::set<std::string> known = {ResolvePath(graph.cwd, graph.source)};
  for (const std::string& input : graph.implicit_inputs) known.insert(ResolvePath(graph.cwd, input));
  for (const GraphStep& step : graph.steps) {
    for (const std::string& output : step.outputs) known.insert(ResolvePath(graph.cwd, output));
    if (!step.kept_depfile.empty()) known.insert(ResolvePath(graph.cwd, step.kept_depfile));
  }
  return std::all_of(graph.steps.begin(), graph.steps.end(), [&](const GraphStep& step) {
    const bool reads_headers = !step.depfile.empty() && step.line_table_ptx.empty();
    const std::string program = step.argv.empty() ? "" : ResolvePath(graph.cwd, step.argv.front());
    return !step.reruns_always && step.cache.result.empty() &&
           (!reads_headers || !step.kept_depfile.empty()) &&
           std::all_of(step.inputs.begin(), step.inputs.end(), [&](const std::string& input) {
             const std::string path = ResolvePath(graph.cwd, input);
             return known.contains(path) || path == program;
           });
  });
}

}  // namespace fastcuda

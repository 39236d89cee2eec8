#include "src/graph/step_graph.h"

#include <re2/re2.h>

#include <algorithm>
#include <filesystem>
#include <set>
#include <string_view>

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
    if (RE2::Consume(&rest, piece, &value))
      candidates.push_back(value);
    else
      rest.remove_prefix(1);
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

/// True if `name`, as cudafe++'s and cicc's `--include_file_name`, names
/// `path`: nvcc gives the file's name alone (or, in -keep mode, in full).
bool NamesFile(const std::string& name, const std::string& path) {
  return name == path || name == std::filesystem::path(path).filename();
}

/// True if a host compiler option would make the early host compile differ
/// from nvcc's: `-r` cannot join LTO or save-temps objects, and the others
/// name files after the object (coverage notes and data, profiles, split
/// DWARF, stack usage, call graphs, dumps, its own depfile), which would
/// then take the early object's name and directory.
bool NeedsHostCompileInPlace(std::string_view word) {
  static constexpr std::string_view kPrefixes[] = {"-flto",         "-save-temps",      "-fprofile-",
                                                   "-gsplit-dwarf", "-fcallgraph-info", "-fdump-"};
  static constexpr std::string_view kWords[] = {"--coverage", "-ftest-coverage", "-fstack-usage", "-MD",
                                                "-MMD"};
  return std::any_of(std::begin(kPrefixes), std::end(kPrefixes),
                     [&](std::string_view prefix) { return word.starts_with(prefix); }) ||
         std::find(std::begin(kWords), std::end(kWords), word) != std::end(kWords);
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
  void AddHeaderDepfile(GraphStep& step) const;
  /// FASTCUDA_MODULE_ID=own: the step that would make the module id reads
  /// it instead, from a step of its own that comes first.
  bool TakeOverModuleId(StepGraph& graph, GraphStep& step);
  /// FASTCUDA_SPLIT_COMPILE: threads for cicc and ptxas, fixed in the
  /// argv or left to `fastcuda step` (auto).
  void SplitCompilation(GraphStep& step, int arch_chains) const;
  /// FASTCUDA_EARLY_HOST=on: finds the fatbin.c the host stub includes and
  /// adds the step writing its placeholder, if the transcript is one whose
  /// host compile can go first.
  bool PlanEarlyHost(const std::vector<Step>& steps, StepGraph& graph);
  /// Appends the step behind its launcher. With FASTCUDA_EARLY_HOST=on the
  /// stub includes the placeholder, and the host compile writes an early
  /// object that a step after it (EMBED_FATBIN) gives the fatbin.
  bool AddWithLauncher(StepGraph& graph, GraphStep step);
  /// Early host: the `--include_file_name` of cudafe++ and cicc, which the
  /// stub includes, becomes the placeholder.
  void RenameStubInclude(std::vector<std::string>& argv) const;
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
  std::string real_fatbin_c_;               ///< early host: what fatbinary writes
  std::string fatbin_bytes_;                ///< early host: the binary fatbin fatbinary writes too
  std::string early_stem_;  ///< early host: the placeholder's and early object's path less suffix
  FatbinLayout fatbin_layout_ = FatbinLayout::kWhole;  ///< early host: the placeholder's layout
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
      if (produced || (!is_work_file && fs_.IsFile(ResolvePath(options_.cwd, candidate)))) {
        step.inputs.push_back(candidate);
        seen.insert(candidate);
      }
    }
  }
}

void GraphBuilder::AddHeaderDepfile(GraphStep& step) const {
  if (!IsPreprocess(step.kind) || step.outputs.empty()) return;
  step.depfile = step.outputs.front() + ".d";
  step.argv.insert(step.argv.end(), {options_.depfile.system_headers ? "-MD" : "-MMD", "-MF", step.depfile});
  if (user_wants_depfile_) step.kept_depfile = step.outputs.front() + ".deps";
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
      if (!IsGeneratedInclude(file) || file == real_fatbin_c_) continue;
      after.insert(producer);
      if (std::find(step.inputs.begin(), step.inputs.end(), file) == step.inputs.end()) {
        step.inputs.push_back(file);
      }
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
  if (!PlanEarlyHost(renamed, graph)) return false;
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
    AddHeaderDepfile(step);
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

bool GraphBuilder::PlanEarlyHost(const std::vector<Step>& steps, StepGraph& graph) {
  if (!options_.modes.early_host) return true;
  std::vector<const Step*> fatbinaries, host_compiles;
  for (const Step& step : steps) {
    if (step.kind == StepKind::kFatbinary) fatbinaries.push_back(&step);
    if (step.kind == StepKind::kHostCompile) host_compiles.push_back(&step);
  }
  if (fatbinaries.size() != 1 || host_compiles.size() != 1) return true;
  std::vector<std::string> fatbin_c = FlagValues(fatbinaries[0]->argv, {"--embedded-fatbin"});
  const std::vector<std::string>& host = host_compiles[0]->argv;
  bool in_place = std::any_of(host.begin(), host.end(), NeedsHostCompileInPlace);
  // CreateFatbin rewrites the flag's one word.
  bool names_one_word =
      fatbin_c.size() == 1 && HasFlag(fatbinaries[0]->argv, std::string(kEmbeddedFatbinFlag) + fatbin_c[0]);
  if (!names_one_word || !fatbin_c[0].ends_with(".fatbin.c") || !HasFlag(host, "-c") ||
      FlagValues(host, {"-o"}).size() != 1 || in_place) {
    return true;
  }
  // The device link's host compile reads its fatbin.c through a macro, not
  // through a stub whose include cudafe++ and cicc name: it stays as it is.
  bool stub_includes_it = std::any_of(steps.begin(), steps.end(), [&](const Step& step) {
    std::vector<std::string> names = FlagValues(step.argv, {"--include_file_name"});
    return !names.empty() && NamesFile(names[0], fatbin_c[0]);
  });
  if (!stub_includes_it) return true;
  real_fatbin_c_ = fatbin_c[0];
  fatbin_bytes_ = real_fatbin_c_.substr(0, real_fatbin_c_.size() - 2);  // nvcc's name for a binary fatbin
  fatbin_layout_ =
      HasFlag(fatbinaries[0]->argv, "--device-c") ? FatbinLayout::kRelocatable : FatbinLayout::kWhole;
  early_stem_ =
      real_fatbin_c_.substr(0, real_fatbin_c_.size() - std::string_view(".fatbin.c").size()) + ".early";
  GraphStep placeholder;
  placeholder.kind = StepKind::kFatbinPlaceholder;
  placeholder.fatbin.layout = fatbin_layout_;
  placeholder.outputs = {early_stem_ + ".fatbin.c"};
  return Add(graph, std::move(placeholder));
}

void GraphBuilder::RenameStubInclude(std::vector<std::string>& argv) const {
  if (real_fatbin_c_.empty()) return;
  std::string placeholder = early_stem_ + ".fatbin.c";
  for (size_t i = 0; i + 1 < argv.size(); ++i) {
    std::string& name = argv[i + 1];
    if (argv[i] != "--include_file_name" || !NamesFile(name, real_fatbin_c_)) continue;
    name = name == real_fatbin_c_ ? placeholder : std::filesystem::path(placeholder).filename().string();
  }
}

bool GraphBuilder::AddWithLauncher(StepGraph& graph, GraphStep step) {
  RenameStubInclude(step.argv);
  std::vector<std::string> launcher = LauncherFor(options_.launchers, step);
  if (!real_fatbin_c_.empty() && step.kind == StepKind::kCudafe) {
    // The host compile no longer reads the fatbin: a device edit need not rerun it.
    std::vector<std::string> host_source = FlagValues(step.argv, {"--gen_c_file_name"});
    if (host_source.size() == 1) step.host_source = host_source.front();
  }
  if (!real_fatbin_c_.empty() && step.kind == StepKind::kFatbinary) {
    step.fatbin.fatbin_bytes = fatbin_bytes_;
    step.fatbin.layout = fatbin_layout_;
    step.outputs.push_back(fatbin_bytes_);
  }
  if (real_fatbin_c_.empty() || step.kind != StepKind::kHostCompile) {
    step.argv.insert(step.argv.begin(), launcher.begin(), launcher.end());
    return Add(graph, std::move(step));
  }
  GraphStep embed;
  embed.kind = StepKind::kEmbedFatbin;
  embed.argv = step.argv;  // it compiles the host code again if the fatbin.c is not as expected
  embed.outputs = step.outputs;
  embed.fatbin = {early_stem_ + ".o", real_fatbin_c_, fatbin_bytes_, fatbin_layout_};
  embed.inputs = {embed.fatbin.early_object, real_fatbin_c_, fatbin_bytes_};
  std::string object = FlagValues(step.argv, {"-o"}).front();
  std::replace(step.argv.begin(), step.argv.end(), object, embed.fatbin.early_object);
  std::replace(step.outputs.begin(), step.outputs.end(), object, embed.fatbin.early_object);
  step.argv.insert(step.argv.begin(), launcher.begin(), launcher.end());
  return Add(graph, std::move(step)) && Add(graph, std::move(embed));
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

}  // namespace fastcuda

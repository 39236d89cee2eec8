// `fastcuda step`: runs one sub-step of nvcc inside a Ninja edge, and
// `fastcuda merge-depfiles`: writes the depfile nvcc was asked for, and
// `fastcuda ladder-dyndep`: writes the priority ladder's dyndep file, and
// `fastcuda write-text`: writes a module id, and
// `fastcuda write-fatbin-placeholder`: writes what the host stub includes
// instead of the fatbin (FASTCUDA_EARLY_HOST).
#include <algorithm>
#include <cctype>
#include <filesystem>
#include <iostream>
#include <stdexcept>

#include "ninja-gen/dyndep.h"
#include "ninja-gen/priority_ladder.h"
#include "src/base/build_load.h"
#include "src/base/command_io.h"
#include "src/base/depfile.h"
#include "src/base/dryrun_runner.h"
#include "src/base/file_system.h"
#include "src/base/json_bytes.h"
#include "src/base/kept_depfile.h"
#include "src/base/memory_admission.h"
#include "src/base/ninja_jobs.h"
#include "src/base/ninja_run.h"
#include "src/base/out_of_memory.h"
#include "src/base/process.h"
#include "src/base/shell_words.h"
#include "src/base/stable_hash.h"
#include "src/base/step_gate.h"
#include "src/base/toolchain_environment.h"
#include "src/cli/commands.h"
#include "src/cli/embed_fatbin.h"
#include "src/cli/step_command.h"
#include "src/cli/whole_call_cache_command.h"
#include "src/graph/compile_modes.h"
#include "src/graph/host_source.h"
#include "src/graph/launchers.h"
#include "src/graph/whole_call_cache.h"
#include "src/nvcc/indirect_inputs.h"
#include "src/nvcc/ptx_line_table.h"
#include "src/plan/graph_dir.h"
#include "src/plan/intermediate_stubs.h"
#include "src/plan/memory_budget.h"
#include "src/plan/step_protocol.h"
#include "src/plan/toolchain_programs.h"

namespace fastcuda {
namespace {

/// The variables of the environment file at `path`, its PATH going on with
/// the one the step inherited (kInheritedPath): the build's, which the
/// generation's keys found the same programs on.
std::map<std::string, std::string> ReadEnvironmentFile(const std::string& path, const FileSystem& fs,
                                                       const std::map<std::string, std::string>& inherited) {
  if (path.empty()) return {};
  std::optional<std::string> text = fs.Read(path);
  if (!text) throw std::runtime_error("cannot read " + path);
  std::map<std::string, std::string> environment = ParseEnvironmentFile(*text);
  if (auto found = environment.find("PATH"); found != environment.end())
    found->second = ExpandInheritedPath(found->second, EnvironmentValue(inherited, "PATH"));
  return environment;
}

/// Makes every relative path of a depfile absolute, so that Ninja, which
/// runs elsewhere, finds the headers; its target becomes the step's first
/// output (absolute), which Ninja, reading the depfile without `deps`, wants
/// to find there as it names the output (nvcc writes a target with spaces
/// unescaped).
void MakeDepfileAbsolute(const std::string& path, const std::string& cwd, const std::string& output,
                         WritableFileSystem& fs) {
  std::optional<std::string> text = fs.Read(path);
  if (!text) return;  // a cache lookup that missed writes none
  Depfile depfile = ParseDepfile(*text);
  depfile.targets = {output};
  for (std::string& dependency : depfile.dependencies) dependency = ResolvePath(cwd, dependency);
  fs.Write(path, FormatDepfile(depfile));
}

/// Where an output waits while its step runs, so that an unchanged result
/// can get its old file (and mtime) back.
std::string PreviousPath(const std::string& output) { return output + ".fastcuda-prev"; }

/// Moves existing outputs aside before the step writes new ones.
void SetOutputsAside(const std::vector<std::string>& outputs, WritableFileSystem& fs) {
  for (const std::string& output : outputs) fs.Rename(output, PreviousPath(output));
}

/// True for an output that this step's graph keeps as a stub.
bool Stubbed(const StepInvocation& options, const std::string& output) {
  for (const std::vector<std::string>* list : {&options.stubbed_by_reader, &options.stubbed_outputs}) {
    for (const std::string& path : *list) {
      if (ResolvePath(options.cwd, path) == output) return true;
    }
  }
  return false;
}

/// After a successful step: where an output came out the same as before
/// (or as its stub says, StandsFor, where the graph keeps it as a stub:
/// another configuration's stub must not stay where a step reads the body), puts the old file back, so Ninja
/// (restat = 1) skips what depends on it; but for one that assembles other
/// files where the step `never_keep_incbin`. A body regenerated for its
/// reader (`restores_body`) stays whole, with its stub's mtime.
void KeepUnchangedOutputs(const StepInvocation& options, const std::vector<std::string>& outputs,
                          WritableFileSystem& fs) {
  for (const std::string& output : outputs) {
    std::string previous = PreviousPath(output);
    std::optional<std::string> before = fs.Read(previous);
    if (!before) continue;
    std::optional<std::string> now = fs.Read(output);
    // A stub's body was read above: only its attribute is read again.
    std::optional<IntermediateStub> stub = Stubbed(options, output) ? ReadStub(fs, previous) : std::nullopt;
    bool same = now && (before == now || (stub && StandsFor(*stub, *now)));
    bool keep = same && !(options.never_keep_incbin && AssemblesOtherFiles(*now));
    std::optional<std::filesystem::file_time_type> mtime = fs.MTime(previous);
    if (keep && options.restores_body && *before != *now && mtime) fs.SetMTime(output, *mtime);
    else if (keep) {
      fs.Rename(previous, output);
      continue;
    }
    fs.Remove(previous);
  }
}

/// Gives the outputs of a step that ran to success a new mtime where they are
/// nvcc's (StepInvocation::fresh_outputs), whether or not they came out the same.
void FreshenOutputs(const StepInvocation& options, const std::vector<std::string>& outputs,
                    WritableFileSystem& fs) {
  if (!options.fresh_outputs) return;
  for (const std::string& output : outputs) fs.Touch(output);
}

/// Appends `text` in a single write (FileSystem::Append), so that
/// concurrent steps' lines do not interleave.
void Append(const std::string& path, const std::string& text, WritableFileSystem& fs) {
  try {
    fs.Append(path, text);
  } catch (const std::runtime_error&) {  // the history is a hint; a step does not fail for it
  }
}

/// Blanks the `#if 0` blocks of cudafe++'s host source, before restat
/// compares it with the last build's.
void BlankDisabledCodeIn(const std::string& path, WritableFileSystem& fs) {
  std::optional<std::string> text = fs.Read(path);
  if (!text) return;
  if (std::optional<std::string> blanked = BlankDisabledCode(*text)) fs.Write(path, *blanked);
}

/// Has cudafe++'s host source, which a cache may have handed back, include
/// the stub by the name that cicc writes it under here.
void RestoreStubNameIn(const std::string& cwd, const StubInclude& include, WritableFileSystem& fs) {
  std::string path = ResolvePath(cwd, include.host_source);
  std::optional<std::string> text = fs.Read(path);
  if (!text) return;
  if (std::optional<std::string> restored = RestoreStubName(*text, include.stub_name))
    fs.Write(path, *restored);
}

/// True where the build's environment asks to keep the intermediates whole
/// (kKeepIntermediatesVariable).
bool KeepsIntermediatesWhole(const std::map<std::string, std::string>& inherited) {
  auto found = inherited.find(std::string(kKeepIntermediatesVariable));
  return found != inherited.end() && !found->second.empty() && found->second != "0";
}

/// FASTCUDA_SPLIT_COMPILE=auto: threads for cicc or ptxas, from the jobs
/// the build runs when the step starts.
void SplitByLoad(StepInvocation& options, const FileSystem& fs,
                 const std::map<std::string, std::string>& environment) {
  if (options.split_share > 0) {
    options.argv =
        WithAutoSplit(std::move(options.argv), CurrentBuildLoad(fs, environment), options.split_share);
  }
}

/// Names the command a signal killed, after the step's own output (which
/// the launcher prints in nvcc's order, and Ninja under the failed edge). A
/// crashing program often says nothing itself.
void ReportSignal(const StepInvocation& options, ProcessResult& result) {
  if (result.signal == 0) return;
  result.stderr_text += "fastcuda: step " + DescribeEnd(result) + ": " + JoinShellWords(options.argv) + "\n";
}

/// True where the step holds the program's output back to print it after
/// the run, both streams in one, in order: where the launcher does not
/// replay it (StepInvocation::capture). Ninja shows a step's output only
/// when it ends anyway; held back, it tells whether the program ran out of
/// memory (RunBesideOrAlone), and (StepInvocation::failure_note) follows
/// the lines of the user's failed edge.
bool PrintsAfterRun(const StepInvocation& options) { return options.capture.empty(); }

/// Prints what the program printed (PrintsAfterRun), after the lines Ninja
/// prints for the user's edge where it failed: Ninja prints a step's output
/// whole, after its own `FAILED:` lines for the step.
void PrintAfterRun(const StepInvocation& options, const ProcessResult& result, const FileSystem& fs) {
  std::string text = result.stdout_text + result.stderr_text;
  if (result.exit_code != 0) {
    std::optional<FailureNote> note =
        FindFailureNote(fs.Read(options.failure_notes).value_or(""), options.failure_note);
    if (note) text = FailedEdgeLines(*note, result.exit_code) + text;
  }
  std::cout << text << std::flush;
}

/// Runs the step's program, or the early host step or fatbin stitch it stands for.
ProcessResult RunProgram(const StepInvocation& options, const ProcessSpec& spec, CommandRunner& runner,
                         WritableFileSystem& fs) {
  if (!options.fatbin_images.empty())
    return StitchFatbin(spec, options.fatbin_images, options.embedding, runner, fs);
  if (!options.embedding) return runner.Run(spec);
  const FatbinEmbedding& embedding = *options.embedding;
  if (embedding.early_object.empty())
    return CreateFatbin(spec, embedding.fatbin_bytes, embedding.layout, runner, fs);
  return EmbedFatbin(spec, embedding, runner, fs);
}

/// The peak an earlier build measured of the step (StepInvocation::memory_peaks), or 0.
int64_t OwnPeakOf(const StepInvocation& options, const std::vector<std::string>& outputs,
                  const FileSystem& fs) {
  if (options.memory_peaks.empty() || outputs.empty()) return 0;
  StepMemory peaks = ParseStepMemoryLog(fs.Read(ResolvePath(options.cwd, options.memory_peaks)).value_or(""));
  auto own = peaks.find(outputs.front());
  return own == peaks.end() ? 0 : own->second;
}

/// The limits the step's graph was planned with, where its memory budget
/// may bind (BudgetMayBind); nullopt where there is none or it cannot.
std::optional<PlannedLimits> BindingLimits(const StepInvocation& options, const WritableFileSystem& fs) {
  if (options.lock_dir.empty()) return std::nullopt;
  std::optional<PlannedLimits> limits =
      ParsePlannedLimits(fs.Read(PlannedLimitsPath(GraphDirOfStepLocks(options.lock_dir))).value_or(""));
  if (!limits || limits->memory_budget_kib <= 0 || !BudgetMayBind(*limits)) return std::nullopt;
  return limits;
}

/// FastCuda's remote client runs a miss on an idle local core
/// (FASTCUDA_REMOTE_LOCAL=idle), where the memory ledger does not see it:
/// where the graph's budget may bind, a remote step's misses go to the
/// workers unless the user chose otherwise.
void KeepMissesRemoteUnderBudget(const StepInvocation& options,
                                 const std::map<std::string, std::string>& inherited,
                                 const WritableFileSystem& fs, ProcessSpec& spec) {
  if (RunsRemotely(options.argv) && !inherited.count("FASTCUDA_REMOTE_LOCAL") && BindingLimits(options, fs))
    spec.env_set.try_emplace("FASTCUDA_REMOTE_LOCAL", "never");
}

/// What the step asks its graph's memory ledger for (MemoryAdmission), from
/// the limits the graph was planned with; nullopt for a step that does not
/// wait for a part of the budget: one that runs remotely, or in a graph
/// planned without one or with one that cannot bind (BudgetMayBind).
std::optional<MemoryRequest> MemoryRequestOf(const StepInvocation& options,
                                             const std::vector<std::string>& outputs,
                                             const WritableFileSystem& fs) {
  if (options.memory_kind.empty() || RunsRemotely(options.argv)) return std::nullopt;
  std::optional<PlannedLimits> limits = BindingLimits(options, fs);
  if (!limits) return std::nullopt;
  std::optional<StepKind> kind = StepKindNamed(options.memory_kind);
  auto earlier = limits->peak_of_kind.find(options.memory_kind);
  std::optional<uintmax_t> input =
      options.memory_input.empty() ? std::nullopt : fs.Size(ResolvePath(options.cwd, options.memory_input));
  return MemoryRequest{options.memory_kind,
                       earlier == limits->peak_of_kind.end() ? 0 : earlier->second,
                       DefaultStepMemory(kind ? *kind : StepKind::kUnknown),
                       limits->memory_budget_kib,
                       static_cast<int64_t>(input.value_or(0) / 1024),
                       OwnPeakOf(options, outputs, fs)};
}

/// Runs the program once its part of the graph's memory budget is free
/// (MemoryAdmission, which watches what the program holds as it runs),
/// beside the other steps of the graph (StepGate); where it ran out of
/// memory there (OutOfMemoryReason), not a failure of the build: once the
/// running steps have ended, it runs again alone, and the outcome of that
/// run is the step's, headed by one line that says what happened. The peak
/// the first run reached goes to the memory log (a lower bound, should the
/// second run fail too), so that the next generation plans with it.
ProcessResult RunBesideOrAlone(const StepInvocation& options, const std::vector<std::string>& outputs,
                               const ProcessSpec& spec, CommandRunner& runner, WritableFileSystem& fs,
                               LockFiles* locks, const AdmissionHooks* hooks) {
  std::optional<MemoryAdmission> admission;
  if (std::optional<MemoryRequest> request = locks ? MemoryRequestOf(options, outputs, fs) : std::nullopt) {
    admission.emplace(*locks, fs, options.lock_dir, hooks ? *hooks : ProcessAdmissionHooks(fs));
    admission->Enter(*request);
  }
  ProcessSpec watched = spec;
  if (admission) watched.tick = [&](int64_t child) { admission->Watch(child); };
  StepGate gate(locks);
  const OomKillCounts before = ReadOomKillCounts(fs);
  gate.EnterBeside();
  ProcessResult beside = RunProgram(options, watched, runner, fs);
  gate.Leave();
  if (admission) admission->Leave(beside.max_rss_kb);
  if (beside.exit_code == 0)
    return beside;  // most steps: no second read of the counts, no copy of the output
  std::optional<std::string> reason =
      OutOfMemoryReason(beside, beside.stdout_text + beside.stderr_text, before, ReadOomKillCounts(fs));
  if (!reason) return beside;
  if (!options.rss_log.empty() && !outputs.empty())
    Append(options.rss_log, StepMemoryLine(outputs.front(), beside.max_rss_kb, beside.cpu_ms), fs);
  StopIfInterrupted();  // stopped, not short of memory: no second run
  gate.EnterAlone();
  ProcessResult alone = RunProgram(options, spec, runner, fs);
  gate.Leave();
  std::string step = std::filesystem::path(options.argv.front()).filename().string();
  if (!options.outputs.empty()) step += " (" + options.outputs.back() + ")";  // cicc's: the PTX
  std::string line = "fastcuda: " + step + " ran out of memory beside other steps: " + *reason +
                     "; ran it again alone, once they had ended: " +
                     (alone.exit_code == 0 ? "it succeeded" : "it " + DescribeEnd(alone) + " there too") +
                     "\n";
  std::string& text = spec.merge_streams ? alone.stdout_text : alone.stderr_text;
  text = line + text;
  return alone;
}

/// Where the step's program runs, which its relative paths are relative to.
std::string ProgramDir(const StepInvocation& options) {
  return options.program_dir.empty() ? options.cwd : ResolvePath(options.cwd, options.program_dir);
}

/// The sources of ptxas's line table (StepInvocation::line_table_ptx),
/// absolute; nullopt for a step without one, or where the PTX cannot be
/// read. ptxas does not change its PTX: one reading serves the checks
/// before and after it runs.
std::optional<std::vector<std::string>> LineTableSources(const StepInvocation& options,
                                                         const FileSystem& fs) {
  if (options.line_table_ptx.empty()) return std::nullopt;
  std::optional<std::string> ptx = fs.Read(ResolvePath(options.cwd, options.line_table_ptx));
  if (!ptx) return std::nullopt;
  std::vector<std::string> sources = PtxLineTableFiles(*ptx);
  for (std::string& source : sources) source = ResolvePath(ProgramDir(options), source);
  return sources;
}

/// What made a step's outputs, as its `made_by` file records it: a hash of
/// its whole command line, and the mtime of each file it read and wrote.
/// Nothing when one of them is missing, but a source of ptxas's line table,
/// whose absence the record says (ptxas then writes none of it), and whose
/// size it records too (ptxas writes both: a restore may keep the mtime).
/// `line_table`: LineTableSources.
std::optional<std::string> MadeByRecord(const StepInvocation& options,
                                        const std::vector<std::string>& outputs,
                                        const std::optional<std::vector<std::string>>& line_table,
                                        const WritableFileSystem& fs) {
  std::string record = StableHashHex(JoinShellWords(options.Words()), 16) + "\n";
  std::vector<std::string> files = outputs;
  for (const std::string& read : options.reads) files.push_back(ResolvePath(options.cwd, read));
  for (const std::string& file : files) {
    std::optional<std::filesystem::file_time_type> mtime = fs.MTime(file);
    if (!mtime) return std::nullopt;
    record += std::to_string(mtime->time_since_epoch().count()) + " " + file + "\n";
  }
  if (options.line_table_ptx.empty()) return record;
  if (!line_table) return std::nullopt;
  for (const std::string& source : *line_table) {
    std::optional<std::filesystem::file_time_type> mtime = fs.MTime(source);
    std::optional<uintmax_t> size = fs.Size(source);
    record += mtime && size ? std::to_string(mtime->time_since_epoch().count()) + " " + std::to_string(*size)
                            : "missing";
    record += " " + source + "\n";
  }
  return record;
}

/// Lists the sources of ptxas's line table (`line_table`: LineTableSources)
/// that exist in the step's depfile, so that Ninja reruns it when one of
/// them changes.
void WriteLineTableDepfile(const StepInvocation& options,
                           const std::optional<std::vector<std::string>>& line_table,
                           WritableFileSystem& fs) {
  std::vector<std::string> existing;
  for (const std::string& source : line_table.value_or(std::vector<std::string>{})) {
    if (fs.IsFile(source)) existing.push_back(source);
  }
  fs.Write(ResolvePath(options.cwd, options.depfile), FormatDepfile({{options.outputs.front()}, existing}));
}

/// The attribute of a `made_by` file that holds the hash of its record
/// (MadeByRecord): the file stays empty, which takes no disk block, where
/// a TU's record took one. Where no attributes are kept the file holds it.
constexpr std::string_view kMadeByAttribute = "user.fastcuda.made-by";

/// The hash that the `made_by` file holds; nullopt where there is none.
std::optional<std::string> RecordedMadeBy(const StepInvocation& options, const WritableFileSystem& fs) {
  const std::string path = ResolvePath(options.cwd, options.made_by);
  std::optional<std::string> text = fs.Read(path);
  if (!text || !text->empty()) return text;
  return fs.Attribute(path, std::string(kMadeByAttribute));
}

/// True when the outputs were made by this very command from the files it
/// reads as they are now, and are still as it wrote them.
bool MadeFromUnchangedReads(const StepInvocation& options, const std::vector<std::string>& outputs,
                            const std::optional<std::vector<std::string>>& line_table,
                            const WritableFileSystem& fs) {
  if (options.made_by.empty()) return false;
  std::optional<std::string> now = MadeByRecord(options, outputs, line_table, fs);
  return now && RecordedMadeBy(options, fs) == ContentHashHex(*now);
}

/// Records in `made_by` what made the outputs as they are now (MadeByRecord),
/// or nothing where that cannot be told.
void RecordMadeBy(const StepInvocation& options, const std::vector<std::string>& outputs,
                  const std::optional<std::vector<std::string>>& line_table, WritableFileSystem& fs) {
  if (options.made_by.empty()) return;
  const std::string path = ResolvePath(options.cwd, options.made_by);
  std::optional<std::string> record = MadeByRecord(options, outputs, line_table, fs);
  if (!record) {
    fs.Remove(path);
    return;
  }
  const std::string hash = ContentHashHex(*record);
  fs.Write(path, "");
  if (!fs.SetAttribute(path, std::string(kMadeByAttribute), hash)) fs.Write(path, hash);
}

/// Gives Ninja the TU's merged depfile (`deps = gcc` reads and removes it),
/// in gcc's layout from the one kept in the work dir (KeptDependencies), or
/// an empty one where the TU writes none (HandEmptyDepfileToNinja).
void WriteNinjaDepfile(const StepInvocation& options, WritableFileSystem& fs) {
  if (options.ninja_depfile.empty()) return;
  const std::string& from = options.ninja_depfile_from;
  std::vector<std::string> dependencies;
  if (!from.empty() && !options.outputs.empty()) {
    dependencies = KeptDependencies(fs, ResolvePath(options.cwd, from), options.kept_headers_source)
                       .value_or(std::vector<std::string>{});
  }
  fs.Write(ResolvePath(options.cwd, options.ninja_depfile),
           dependencies.empty() ? "" : FormatDepfile({{options.outputs.front()}, dependencies}));
}

/// Whether the whole-call cache's lookup, which this step waits for, hit.
bool CacheHit(const StepInvocation& options, const FileSystem& fs) {
  return !options.cache.result.empty() && ReadsCacheHit(fs, ResolvePath(options.cwd, options.cache.result));
}

/// A step whose nvcc call the cache held: the object is the cache's, every
/// other output stays as it is (made empty where missing: the steps after
/// this one do not run either). A kept depfile is emptied: the headers are
/// the lookup's now.
int UseCacheHit(const StepInvocation& options, const std::vector<std::string>& outputs,
                WritableFileSystem& fs) {
  if (!options.kept_depfile.empty()) {
    std::string kept = ResolvePath(options.cwd, options.kept_depfile);
    if (fs.Read(kept) != "") fs.Write(kept, "");
  }
  if (!options.cache.hit_object.empty() && !outputs.empty()) {
    std::optional<std::string> object = fs.Read(ResolvePath(options.cwd, options.cache.hit_object));
    if (!object) throw std::runtime_error("the cache's object is gone: " + options.cache.hit_object);
    if (fs.Read(outputs.front()) != object) fs.Write(outputs.front(), *object);
  }
  for (const std::string& output : outputs) {
    if (!fs.IsFile(output)) fs.Write(output, "");
  }
  FreshenOutputs(options, outputs, fs);
  if (!options.made_by.empty()) fs.Remove(ResolvePath(options.cwd, options.made_by));
  WriteNinjaDepfile(options, fs);
  if (!options.stamp.empty()) fs.Write(ResolvePath(options.cwd, options.stamp), "");
  return 0;
}

/// The lookup's outcome: the result file says "hit" when the cache wrote
/// the object, else "miss" (the object file left empty, so that Ninja finds
/// every output and runs the lookup again only when its inputs change); the
/// dyndep file gives each waiter its inputs after that outcome. Outputs that
/// come out the same keep their mtimes (KeepUnchangedOutputs): a dyndep file
/// rewritten only when the outcome flips leaves its waiters' edges clean.
void FinishLookup(const StepInvocation& options, const std::vector<std::string>& outputs,
                  const ProcessResult& result, WritableFileSystem& fs) {
  if (outputs.size() < 2) throw std::invalid_argument("a cache lookup writes a result and an object");
  const bool hit = result.exit_code == 0 && fs.IsFile(outputs[1]);
  fs.Write(outputs[0], hit ? "hit" : "miss");
  if (!hit) fs.Write(outputs[1], "");
  if (options.cache.dyndep.empty()) return;
  fs.Write(ResolvePath(options.cwd, options.cache.dyndep), LookupDyndepText(options.waiters, hit));
}

/// A lookup that missed has no depfile of the cache's. Ninja gets the
/// headers the TU's steps read last time (`cache.store_depfiles`), so that an
/// edit of one asks the cache again (a branch switched back may hit); the
/// steps' own depfiles keep the build correct whatever this list misses.
void GiveMissTheLastHeaders(const StepInvocation& options, const std::string& depfile,
                            WritableFileSystem& fs) {
  std::vector<std::string> headers = DependenciesOfDepfiles(options.cache.store_depfiles, options.cwd, fs);
  if (!headers.empty()) fs.Write(depfile, FormatDepfile({{options.outputs.front()}, headers}));
}

/// Tells the program's launcher what it reads and writes, a path a line
/// relative to where it runs, so that a remote executor need not parse the
/// program's flags, and where it may say whether a cache gave the outputs
/// (kStepInputsVariable and the next two). Returns that file, or "".
std::string NameFilesForLauncher(const StepInvocation& options, const std::vector<std::string>& outputs,
                                 const std::string& program_dir, ProcessSpec& spec, WritableFileSystem& fs) {
  if (options.inputs.empty()) return "";
  std::filesystem::path here =
      program_dir.empty() ? std::filesystem::current_path() : std::filesystem::path(program_dir);
  std::string inputs, written;
  for (const std::string& input : options.inputs) inputs += input + "\n";
  for (const std::string& output : outputs) {
    written += std::filesystem::absolute(output).lexically_relative(here).string() + "\n";
  }
  spec.env_set[std::string(kStepInputsVariable)] = inputs;
  spec.env_set[std::string(kStepOutputsVariable)] = written;
  if (!options.work_dir.empty()) spec.env_set[std::string(kStepWorkDirVariable)] = options.work_dir;
  if (!options.depfile.empty()) {
    spec.env_set[std::string(kStepDepfileVariable)] =
        std::filesystem::absolute(ResolvePath(options.cwd, options.depfile))
            .lexically_relative(here)
            .string();
  }
  if (outputs.empty()) return "";
  std::string result = outputs.front() + ".cache-result";
  fs.Remove(result);  // what an earlier run's launcher said is not this run's
  spec.env_set[std::string(kStepCacheResultVariable)] = result;
  return result;
}

/// What the launcher wrote to `result` ("hit" or "miss"), or ""; the file goes.
std::string TakeCacheOutcome(const std::string& result, WritableFileSystem& fs) {
  if (result.empty()) return "";
  std::string outcome = fs.Read(result).value_or("");
  fs.Remove(result);
  while (!outcome.empty() && std::isspace(static_cast<unsigned char>(outcome.back()))) outcome.pop_back();
  return outcome == "hit" || outcome == "miss" || outcome == "here" ? outcome : "";
}

}  // namespace

int RunStep(StepInvocation options, CommandRunner& runner, WritableFileSystem& fs,
            const std::map<std::string, std::string>& inherited, LockFiles* locks,
            const AdmissionHooks* hooks) {
  SplitByLoad(options, fs, inherited);
  std::string program_dir = ProgramDir(options);
  ProcessSpec spec{options.argv, program_dir, ReadEnvironmentFile(options.env_file, fs, inherited),
                   /*capture_output=*/true};
  spec.merge_streams = PrintsAfterRun(options);
  if (std::string temp_dir = StepTempDir(options); !temp_dir.empty())
    spec.temp_dir = std::filesystem::absolute(temp_dir).string();  // the program may run elsewhere
  for (const auto& [name, value] : LauncherVariables(options.argv, inherited))
    spec.env_set.try_emplace(name, value);
  KeepMissesRemoteUnderBudget(options, inherited, fs, spec);
  std::vector<std::string> outputs;
  for (const std::string& output : options.outputs) {
    if (output != options.stamp) outputs.push_back(ResolvePath(options.cwd, output));
  }
  std::string cache_result = NameFilesForLauncher(options, outputs, program_dir, spec, fs);
  if (CacheHit(options, fs)) return UseCacheHit(options, outputs, fs);
  if (options.cache_lookup) AskWithoutCompiling(spec);
  const std::optional<std::vector<std::string>> line_table = LineTableSources(options, fs);
  // A body restored for its reader is needed whole, where its stub would do for Ninja.
  if (!options.restores_body && MadeFromUnchangedReads(options, outputs, line_table, fs)) {
    if (options.fresh_outputs) {  // the record names the outputs' mtimes
      FreshenOutputs(options, outputs, fs);
      RecordMadeBy(options, outputs, line_table, fs);
    }
    WriteNinjaDepfile(options, fs);
    return 0;
  }
  if (!options.made_by.empty()) fs.Remove(ResolvePath(options.cwd, options.made_by));
  const Regenerated regenerated = RegenerateStubbedInputs(
      options,
      // Ninja is looked for only where a stub must be made whole again.
      [&](const std::string& path) {
        return ProducerInManifest(options, path, NinjaProgram(inherited), runner);
      },
      [&](const StepInvocation& producer) { return RunStep(producer, runner, fs, inherited); }, fs);
  if (regenerated.exit_code != 0) return regenerated.exit_code;
  const bool keep_whole = KeepsIntermediatesWhole(inherited);
  SetOutputsAside(outputs, fs);
  // A stamp is its step's Landmark: none while the program runs, nor after
  // it fails (TuRecord::landmarks).
  if (!options.stamp.empty()) fs.Remove(ResolvePath(options.cwd, options.stamp));
  const int64_t started = fs.ClockNow();  // what changes from now on, the program may not have read
  ProcessResult result = RunBesideOrAlone(options, outputs, spec, runner, fs, locks, hooks);
  ReportSignal(options, result);
  if (PrintsAfterRun(options)) PrintAfterRun(options, result, fs);
  if (!options.capture.empty()) {
    // A lookup that missed is no failure to replay; what ccache said is not nvcc's.
    CapturedOutput captured{result.stdout_text, result.stderr_text, result.exit_code};
    if (options.cache_lookup && result.signal == 0) captured = {"", "", 0};
    WriteCapture(options.capture, captured, fs);
  }
  if (options.cache_lookup && result.signal == 0) FinishLookup(options, outputs, result, fs);
  else if (result.exit_code != 0) {
    // Leave nothing that a later build could mistake for a good result.
    for (const std::string& output : outputs) {
      fs.Remove(output);
      fs.Remove(PreviousPath(output));
    }
    TakeCacheOutcome(cache_result, fs);
    StubConsumedInputs(options, regenerated, /*keep_whole=*/true, fs);
    return result.exit_code;
  }
  if (!options.stub_include.host_source.empty()) RestoreStubNameIn(options.cwd, options.stub_include, fs);
  if (!options.blank_disabled.empty())
    BlankDisabledCodeIn(ResolvePath(options.cwd, options.blank_disabled), fs);
  KeepUnchangedOutputs(options, outputs, fs);
  FreshenOutputs(options, outputs, fs);
  StubConsumedInputs(options, regenerated, keep_whole, fs);
  StubUnreadOutputs(options, keep_whole, fs);
  std::string cache_outcome = TakeCacheOutcome(cache_result, fs);
  if (!options.rss_log.empty() && !outputs.empty()) {
    Append(options.rss_log,
           StepMemoryLine(outputs.front(), result.max_rss_kb, result.cpu_ms, cache_outcome, NinjaRunOf(fs)),
           fs);
  }
  std::string depfile = ResolvePath(options.cwd, options.depfile);
  if (!options.depfile_from.empty()) {
    fs.Write(depfile, fs.Read(ResolvePath(options.cwd, options.depfile_from)).value_or(""));
  }
  if (!options.kept_depfile.empty()) {
    // New after each run of the step's own edge: the launcher takes a
    // header newer than it for a change during the build. A body
    // regenerated for its reader leaves it, and the user depfile's merge, be.
    std::optional<std::string> written = fs.Read(depfile);
    KeepDepfile(fs, ResolvePath(options.cwd, options.kept_depfile),
                written ? ParseDepfile(*written) : Depfile{}, options.kept_headers_source,
                options.restores_body);
  }
  if (options.cache_lookup && !fs.IsFile(depfile)) GiveMissTheLastHeaders(options, depfile, fs);
  if (!options.line_table_ptx.empty()) WriteLineTableDepfile(options, line_table, fs);
  if (options.absolute_depfile && !outputs.empty())
    MakeDepfileAbsolute(depfile, options.cwd, outputs.front(), fs);
  WriteNinjaDepfile(options, fs);
  if (!options.cache.store.empty()) StoreInWholeCallCache(options, spec, runner, fs, inherited);
  RecordMadeBy(options, outputs, line_table, fs);
  if (!options.reads_log.empty() && !options.outputs.empty())
    fs.Append(options.reads_log, SourceReadLine(started, options.outputs.front()));
  if (!options.stamp.empty()) fs.Write(ResolvePath(options.cwd, options.stamp), "");
  return 0;
}

int StepMain(const std::vector<std::string>& args, const CommandIo& io) {
  DieWithParent();
  StepInvocation step = StepInvocation::Parse(args);
  std::optional<DirectoryLockFiles> locks;
  if (!step.lock_dir.empty()) locks.emplace(step.lock_dir);
  return RunStep(std::move(step), io.runner, io.fs, io.environment, locks ? &*locks : nullptr);
}

int WriteTextMain(const std::vector<std::string>& args, const CommandIo& io) {
  std::string cwd;
  size_t i = 0;
  if (args.size() >= 2 && args[0] == kCwdFlag) {
    cwd = args[1];
    i = 2;
  }
  if (args.size() != i + 2) throw std::invalid_argument("write-text needs [--cwd DIR] TEXT FILE");
  // Unchanged text keeps its file's mtime, so Ninja (restat) skips its readers.
  WriteIfChanged(io.fs, ResolvePath(cwd, args[i + 1]), args[i]);
  return 0;
}

int ToolchainStampMain(const std::vector<std::string>& args, const CommandIo& io) {
  if (args.empty() || args.size() > 2) throw std::invalid_argument("toolchain-stamp needs FILE [RECORD]");
  std::string changed;
  if (args.size() == 2) {
    changed = ChangedPrograms(io.fs.Read(args[1]).value_or(""), NvccDryrunRunner(io.runner, io.environment));
  }
  WriteIfChanged(io.fs, args[0], EnvironmentKey(ToolchainEnvironment(io.environment)) + changed);
  return 0;
}

int WriteFatbinPlaceholderMain(const std::vector<std::string>& args, const CommandIo& io) {
  std::optional<FatbinLayout> layout;
  if (args.size() == 4 && args[0] == kCwdFlag) layout = ParseFatbinLayout(args[2]);
  if (!layout) throw std::invalid_argument("write-fatbin-placeholder needs --cwd DIR whole|relocatable FILE");
  WriteIfChanged(io.fs, ResolvePath(args[1], args[3]), FatbinPlaceholder(*layout));
  return 0;
}

int LadderDyndepMain(const std::vector<std::string>& args, const CommandIo& io) {
  if (args.size() != 2) throw std::invalid_argument("ladder-dyndep needs PLAN FILE");
  WritableFileSystem& fs = io.fs;
  std::optional<std::string> plan = fs.Read(args[0]);
  if (!plan) throw std::runtime_error("cannot read " + args[0]);
  // Unchanged text keeps its mtime, so Ninja (restat) leaves the rungs be.
  WriteIfChanged(fs, args[1], LadderDyndepText(ParseLadderDyndepPlan(*plan), [&](const std::string& result) {
                   return ReadsCacheHit(fs, result);
                 }));
  return 0;
}

int MergeDepfilesMain(const std::vector<std::string>& args, const CommandIo& io) {
  std::string cwd, target, output, cache_result, source;
  bool phony_targets = false, compact = false;
  std::vector<std::string> parts, on_hit;
  for (size_t i = 0; i < args.size(); ++i) {
    bool has_value = i + 1 < args.size();
    if (args[i] == "--phony-targets") phony_targets = true;
    else if (args[i] == "--compact") compact = true;
    else if (args[i] == kCwdFlag && has_value) cwd = args[++i];
    else if (args[i] == "--target" && has_value) target = args[++i];
    else if (args[i] == "--source" && has_value) source = args[++i];
    else if (args[i] == "-o" && has_value) output = args[++i];
    else if (args[i] == "--skip-on-hit" && has_value) cache_result = ResolvePath(cwd, args[++i]);
    else if (args[i] == "--on-hit" && has_value) on_hit.push_back(ResolvePath(cwd, args[++i]));
    else parts.push_back(ResolvePath(cwd, args[i]));
  }
  if (output.empty()) throw std::invalid_argument("merge-depfiles needs -o FILE");
  // A whole-call cache's hit: the steps that wrote the other parts did not run.
  if (!cache_result.empty() && ReadsCacheHit(io.fs, cache_result)) parts = on_hit;
  Depfile merged{{target}, DependenciesOfDepfiles(parts, "", io.fs, source)};
  // Unchanged, it keeps its mtime: the object's step reads it (StepInvocation::reads).
  if (compact) KeepDepfile(io.fs, ResolvePath(cwd, output), merged, source, /*only_if_changed=*/true);
  else WriteIfChanged(io.fs, ResolvePath(cwd, output), FormatDepfile(merged, phony_targets));
  return 0;
}

}  // namespace fastcuda

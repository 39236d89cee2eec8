// A graph directory: every path in it and the format of every file FastCuda
// keeps there (`fastcuda gen --out DIR`, or a launcher's work dir).
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "src/base/dryrun_runner.h"
#include "src/base/file_system.h"
#include "src/graph/kept_intermediates.h"
#include "src/graph/step_graph.h"

namespace fastcuda {

/// The lock in a graph directory that `fastcuda build`, `fastcuda ninja` and
/// the launchers that build the graph take (exclusive to build, shared to
/// read), by its name there (DirectoryLock).
inline constexpr const char* kGraphLockName = "build.lock";
/// The lock in a launcher's work dir (LauncherWorkDir): the calls for one
/// object run one after another.
inline constexpr const char* kWorkDirLockName = "lock";

/// Where the files of a graph directory are.
std::string GlobalManifestPath(const std::string& dir);  ///< `build.ninja`
std::string StepsManifestPath(const std::string& dir);   ///< `steps.ninja`: for `fastcuda ninja`
std::string NinjaLogPath(const std::string& dir);        ///< Ninja's `.ninja_log`
/// `ninja-log-path`: a graph that is a part of a generator's manifest names
/// there the Ninja log its steps' times go to (the manifest's, not its own).
std::string NinjaLogSourcePath(const std::string& dir);
std::string TuRoot(const std::string& dir);  ///< `tu/`: one work dir per TU
/// The launcher's own work dir of an object: `.fastcuda/OBJECT` beside it,
/// so that it shares its fate (a `clean` of the build tree, a different
/// build directory).
std::string LauncherWorkDir(const std::string& absolute_output);
std::string EnvFilePath(const std::string& work_dir);  ///< a graph's environment (`nvcc.env`)
/// `record.json`: where an earlier FastCuda kept a TU's record, a disk
/// block each; generation removes it.
std::string EarlierTuRecordPath(const std::string& work_dir);
/// `step-peaks`: the peak memory earlier builds measured of the TU's steps
/// (StepPeaksText), which each step expects again (MemoryAdmission).
std::string StepPeaksPath(const std::string& work_dir);
std::string CaptureDir(const std::string& work_dir);  ///< a launcher's steps' output (WriteCapture)
/// The file in `capture_dir` (CaptureDir) that step `step_index` of `graph`
/// saves its output in: named by a hash of its command too, so that output
/// captured for another command is not replayed after the manifest changed.
std::string CapturePath(const std::string& capture_dir, const StepGraph& graph, size_t step_index);
/// `failed-edges`: the user's edge of each `fastcuda ninja` TU (FormatFailureNotes).
std::string FailureNotesPath(const std::string& dir);
std::string StepsFilePath(const std::string& dir);      ///< `steps.json`, see StepsFileText
std::string StepMemoryLogPath(const std::string& dir);  ///< `step-memory.tsv`, see StepMemoryLine
std::string SourceReadsPath(const std::string& dir);    ///< `source-reads.tsv`, see SourceReadLine
/// `read-files.tsv`: the earliest start of a step that read each file (SourceChangedSinceRead).
std::string ReadFilesPath(const std::string& dir);
std::string StepTempRoot(const std::string& dir);  ///< `tmp/`: the steps' TMPDIRs, see StepTempDir
std::string StepLocksDir(const std::string& dir);  ///< `step-locks/`: StepGate, MemoryAdmission
/// The graph directory whose StepLocksDir is `lock_dir`.
std::string GraphDirOfStepLocks(const std::string& lock_dir);
std::string KeptFilesPath(const std::string& dir);    ///< `kept-files`, see FormatKeptFiles
std::string DryrunCachePath(const std::string& dir);  ///< dryrun texts by key
std::string GenCommandPath(const std::string& dir);   ///< what `gen` planned with
/// `toolchain-programs.json`, see FormatProgramRecord.
std::string ToolchainProgramsPath(const std::string& dir);
std::string GraphObjectsPath(const std::string& dir);  ///< `objects.json`, see FormatGraphObjects
/// `tu-records`: what `fastcuda --graph` reads of each TU (FormatTuRecords).
std::string TuRecordsPath(const std::string& dir);
std::string LauncherBuildPath(const std::string& dir);  ///< see LauncherBuild
/// `build-args`: the `fastcuda build` arguments (shell words) the CMake
/// module writes for the launcher, which builds the graph itself.
std::string BuildArgsPath(const std::string& dir);
/// Present while the manifest was generated without step times, holding the
/// size Ninja's log had then.
std::string NoHistoryPath(const std::string& dir);
/// `step-history-mark`: where Ninja's log and step-memory.tsv ended when
/// their steps were last remembered across build directories (RememberBuild).
std::string StepHistoryMarkPath(const std::string& dir);
/// `remembered-memory.tsv`: the steps' peaks as another build directory
/// measured them (lines of step-memory.tsv's form), which the generation
/// reads for the steps this one has not measured.
std::string RememberedMemoryPath(const std::string& dir);
/// `lookup-pass`: the Ninja target that runs the graph's whole-call cache
/// lookups, which a build makes before the rest; empty where there are none.
std::string LookupPassPath(const std::string& dir);
/// `planned-limits.json`: the memory budget and job count the manifest was
/// planned with, and where each came from (PlannedLimits).
std::string PlannedLimitsPath(const std::string& dir);
/// `first-phase`: where a first build's estimates and its build began (FirstPhase).
std::string FirstPhasePath(const std::string& dir);
/// `env/HASH.env`: the environment file (EnvironmentFileText) that graphs
/// setting the same variables share, by its text.
std::string SharedEnvFilePath(const std::string& dir, const std::string& environment_text);
/// `priority/`: the priority ladder's files: its rungs (`rungK`, K from 1),
/// its dyndep file and the plan that file is written from.
std::string LadderDir(const std::string& dir);
std::string RungPath(const std::string& ladder_dir, size_t k);
std::string LadderDyndepPath(const std::string& ladder_dir);
std::string LadderDyndepPlanPath(const std::string& ladder_dir);
/// The work dir's phony target that is never up to date: an input of the
/// steps that run in every build (nvcc run whole without a depfile,
/// FragmentOptions::rerun_preprocessing).
std::string AlwaysDirtyPath(const std::string& work_dir);
/// `object-made-by`: what made the object of the work dir's TU last (StepInvocation::made_by).
std::string ObjectMadeByPath(const std::string& work_dir);

/// `fastcuda ninja`: the graph directory of a generator's manifest in
/// `manifest_dir` is kRewriteDirName there, and holds these besides.
inline constexpr const char* kRewriteDirName = ".fastcuda";
std::string RewriteDir(const std::string& manifest_dir);
/// The file `name` of the rewrite's directory as Ninja, running in the
/// manifest's directory, names it.
std::string InRewriteDir(const std::string& name);
/// `ninja-key`: what the rewrite was made with (arguments, toolchain).
std::string RewriteKeyPath(const std::string& dir);
/// `bin/ninja`: fastcuda linked as `ninja`, which the generator's tools run.
std::string SelfAsNinjaPath(const std::string& dir);
/// `shared-objects.json`: the objects both plain ninja and the rewrite write (SharedObject).
std::string SharedObjectsPath(const std::string& dir);
/// `log-handovers.json`: the records handed over to plain ninja's log (Handover).
std::string HandoversPath(const std::string& dir);
/// `build-start`: stamped as the rewrite's Ninja starts (BuildStart).
std::string BuildStartPath(const std::string& dir);
/// `noop-check`: the files the rewrite's copy was made from, one a line,
/// where plain ninja may judge a no-op (PlainNinjaFindsNothingToDo).
std::string NoopCheckPath(const std::string& dir);

/// The step history's directory (StepHistoryDir) holds one file a source
/// (SourceTimesPath: its name and a hash of its path) and `forgotten-on`,
/// the day old files were last removed.
std::string SourceTimesPath(const std::string& history_dir, const std::string& source_path);
std::string ForgottenOnPath(const std::string& history_dir);

/// A step as the generator recorded it in `steps.json`.
struct RecordedStep {
  std::string kind;  ///< the rule name, e.g. "CICC"
  std::string arch;
  std::string output;         ///< first output, as Ninja names it
  std::vector<size_t> after;  ///< indexes within the TU
};

/// A TU as the generator recorded it.
struct RecordedTu {
  std::string source;
  std::vector<RecordedStep> steps;
  bool on_request = false;       ///< what the manifest builds by default does not need it
  std::string source_path = "";  ///< the source's absolute path (for SourceTimesPath)
};

/// `steps.json`: every step of every graph, its first output named by
/// `ninja_path` (in the TU's work dir: written after it, which the TU names
/// once) (written on `threads` threads), and the graphs that
/// `on_request` says the default targets do not need; and back (throws
/// std::runtime_error if it is not one, or if a step waits for one not
/// before it in its TU: no graph lists one (StepGraph), and every reader
/// walks the steps in that order and indexes by them).
std::string StepsFileText(const std::vector<StepGraph>& graphs,
                          const std::function<std::string(const StepGraph&, const std::string&)>& ninja_path,
                          unsigned threads = 1,
                          const std::function<bool(const StepGraph&)>& on_request = nullptr);
std::vector<RecordedTu> ParseStepsFile(std::string_view text);

/// The Ninja log with the step times of the graph in `dir`: its own, or the
/// one NinjaLogSourcePath names.
std::string GraphNinjaLogPath(const std::string& dir, const FileSystem& fs);

/// Ninja's deps log (`.ninja_deps`), which it keeps beside its log at `log_path`.
std::string NinjaDepsLogBeside(const std::string& log_path);

/// `nvcc.env`: the variables every step of a graph sets; and back.
std::string EnvironmentFileText(const std::map<std::string, std::string>& environment);
std::map<std::string, std::string> ParseEnvironmentFile(std::string_view text);

/// The programs a generation identified (GlobalPlan::programs): a JSON
/// object of name -> [path, stamp]; and back, empty where damaged (which
/// only regenerates less: the other keys still hold).
std::string FormatProgramRecord(const std::map<std::string, ProgramIdentity>& programs);
std::map<std::string, ProgramIdentity> ParseProgramRecord(std::string_view text);

/// Peak resident memory (KiB) of the step writing each output, from earlier
/// builds: the largest seen.
using StepMemory = std::map<std::string, int64_t>;

/// The line a step appends to `step-memory.tsv`: its first output, its
/// peak memory, its CPU time, where its launcher said, whether a cache
/// gave its outputs (kStepCacheResultVariable), and where it knows it, its
/// Ninja run (NinjaRunOf) (in one
/// write, so that concurrent steps' lines do not interleave); and the peaks
/// read back (lines without the CPU time, from earlier versions, too).
std::string StepMemoryLine(const std::string& output, int64_t peak_kib, int64_t cpu_ms,
                           const std::string& cache_outcome = "", const std::string& ninja_run = "");
StepMemory ParseStepMemoryLog(std::string_view text);

/// The peaks that a generation of the graph in `dir` plans its memory
/// budget with: those of its step-memory.tsv, then, for the steps it has not
/// measured, those of its RememberedMemoryPath.
StepMemory ReadPlannedPeaks(const std::string& dir, const FileSystem& fs);

/// All that `step-memory.tsv` says of each output, read in one pass: its
/// peaks as ParseStepMemoryLog gives them, its cache outcome in the last
/// line the log has for it (none where that line has none), and the Ninja
/// run of each of its lines, in order ("" where a line names none).
struct StepMemoryRecords {
  StepMemory peaks;
  std::map<std::string, std::string> cache_outcomes;
  std::map<std::string, std::vector<std::string>> ninja_runs;
};
StepMemoryRecords ParseStepMemoryRecords(std::string_view text);

/// The line a step that reads the sources appends to `source-reads.tsv`
/// when it succeeds (in one write): when it started, on the file system's
/// clock (FileSystem::ClockNow), and its first output as Ninja names it;
/// and the latest start of each output, read back.
std::string SourceReadLine(int64_t started, const std::string& output);
std::map<std::string, int64_t> ParseSourceReads(std::string_view text);

/// The memory budget and job count a graph was planned with, and where
/// each came from, as `fastcuda report` says it; what its steps wait for a
/// part of the budget with (MemoryAdmission).
struct PlannedLimits {
  int64_t memory_budget_kib = 0;
  std::string memory_source;  ///< e.g. "95 % of /sys/fs/cgroup/memory.max less the cgroup's usage"
  unsigned jobs = 1;
  std::string jobs_source;  ///< e.g. "the quota in /sys/fs/cgroup/cpu.max"
  /// The highest peak (KiB) of a step of each kind in earlier builds (PeaksByKind).
  std::map<std::string, int64_t> peak_of_kind;
};

/// PlannedLimitsPath's text; and back (nullopt for one that is not).
std::string FormatPlannedLimits(const PlannedLimits& limits);
std::optional<PlannedLimits> ParsePlannedLimits(std::string_view text);

/// `kept-files`, which `fastcuda build` reads before each build; and back.
/// Paths may hold any byte but NUL; each is written as what it shares with
/// the one before (a TU's paths share its work dir) and the rest, a tenth
/// of the paths whole. An earlier version's file, of whole paths, reads too.
std::string FormatKeptFiles(const std::vector<KeptFiles>& tus);
std::vector<KeptFiles> ParseKeptFiles(std::string_view text);

}  // namespace fastcuda

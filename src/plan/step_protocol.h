// `fastcuda step`'s command line, which the generator writes into each Ninja
// edge and the step reads back, and the files in which a step leaves what it
// printed for the launcher: one home for both sides of each.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "src/base/file_system.h"
#include "src/graph/fatbin_embedding.h"
#include "src/graph/step_graph.h"

namespace fastcuda {

/// The option naming the directory a command of an edge runs in, for
/// `fastcuda step` as for the commands fastcuda runs itself (write-text,
/// merge-depfiles, write-fatbin-placeholder).
inline constexpr std::string_view kCwdFlag = "--cwd";

/// What a device step's launcher finds in its environment: the files the
/// program reads and writes, one a line, relative to where it runs; and a
/// file to write "hit" or "miss" to, where the launcher knows whether a
/// cache or a remote service's action cache gave the outputs, or "here" for
/// a miss FastCuda's remote client ran on an idle local core (`fastcuda
/// report` counts them per step kind).
inline constexpr std::string_view kStepInputsVariable = "FASTCUDA_STEP_INPUTS";
inline constexpr std::string_view kStepOutputsVariable = "FASTCUDA_STEP_OUTPUTS";
inline constexpr std::string_view kStepCacheResultVariable = "FASTCUDA_STEP_CACHE_RESULT";
/// For a step FastCuda's client caches here (CachesHere): the TU's work
/// dir, whose path the client leaves out of the step's key, so that another
/// build directory's step has the same one; and the header depfile the
/// program writes, whose headers go into the key.
inline constexpr std::string_view kStepWorkDirVariable = "FASTCUDA_STEP_WORK_DIR";
inline constexpr std::string_view kStepDepfileVariable = "FASTCUDA_STEP_DEPFILE";

/// An edge that waits for a whole-call cache's lookup through the lookup's
/// dyndep file (WholeCallCacheUse::dyndep): its first output and the inputs
/// that the file gives it on a hit and on a miss, as Ninja names them.
struct LookupWaiter {
  std::string output;
  std::vector<std::string> on_hit;
  std::vector<std::string> on_miss;
};

/// One call of `fastcuda step`: runs one sub-step of nvcc inside a Ninja edge.
struct StepInvocation {
  std::string cwd;          ///< the directory the step's own paths are relative to
  std::string program_dir;  ///< run the program here rather than in `cwd`
  std::string work_dir;     ///< the TU's work dir, for a launcher that caches here (kStepWorkDirVariable)
  /// What the program reads, absolute or relative to where it runs: for a
  /// launcher (a remote executor uploads them), in FASTCUDA_STEP_INPUTS.
  std::vector<std::string> inputs;
  std::string env_file;           ///< JSON object of variables to set
  std::string depfile;            ///< the program writes this header depfile
  bool absolute_depfile = false;  ///< rewrite the depfile's relative paths as absolute
  std::string kept_depfile;       ///< copy of the depfile as the program wrote it (KeepDepfile)
  /// The TU's source as its preprocess steps name it, which shared header
  /// lists leave out (KeepDepfile): of the depfile this step keeps, or of
  /// the one it hands Ninja (`ninja_depfile_from`); none: they are whole.
  std::string kept_headers_source;
  std::string depfile_from;  ///< the program writes its depfile here, copied to `depfile` first
  /// ptxas with line information: its PTX, whose `.file` sources go into
  /// `depfile` on success and into the `made_by` record (GraphStep::line_table_ptx).
  std::string line_table_ptx;
  std::vector<std::string> outputs;  ///< kept when unchanged, removed when the program fails
                                     ///< (the words before `--` that are no option)
  /// The outputs are what nvcc was asked to write (the object that the build
  /// system around sees): each run of the step, the program's or not, leaves
  /// them with a new mtime, as nvcc writes them on every run. A generator's
  /// compile edge has no restat: an object that kept its old mtime would stay
  /// older than the header that made the step run, and be rebuilt forever.
  bool fresh_outputs = false;
  std::string stamp;    ///< touched when the program succeeds; it is no output to keep
  std::string capture;  ///< save what the program printed (WriteCapture)
  /// `fastcuda ninja`: the graph's notes of the user's edges
  /// (FormatFailureNotes) and the one of this step's TU (its key there).
  /// The step prints what the program printed after its run, and where it
  /// failed the lines Ninja prints for the user's nvcc edge before that, so
  /// that `FAILED: OBJECT` and the user's command head the errors as they
  /// do under plain ninja.
  std::string failure_notes;
  std::string failure_note;
  std::string rss_log;  ///< append "FIRST-OUTPUT<tab>PEAK-KiB" here on success
  /// A step that reads the sources: append when it started (SourceReadLine)
  /// here on success, so that it reruns when a file it read changes later.
  std::string reads_log;
  /// Non-empty: the program's TMPDIR is a directory of its own under this one
  /// (StepTempDir), so that what an interrupted program leaves there (cicc's
  /// bitcode file) stays in the build tree and goes with the step's next run.
  std::string temp_root;
  /// The program runs through a launcher, which may start a daemon that
  /// outlives the step (sccache's server, distccd behind ssh): it keeps the
  /// TMPDIR the step inherited.
  bool keeps_tmpdir = false;
  /// Non-empty: the directory of the graph's StepGate locks. The program
  /// runs beside the other steps, and where it ran out of memory there,
  /// once more alone.
  std::string lock_dir;
  /// With `lock_dir`: the kind of step (StepKindName) that the program
  /// waits for its part of the graph's memory budget as (MemoryAdmission).
  std::string memory_kind;
  /// The input whose size the program's peak memory grows with (MemoryInputOf).
  std::string memory_input;
  /// With `lock_dir`: the TU's StepPeaksPath, where earlier builds' peak of
  /// this step may be.
  std::string memory_peaks;
  int split_share = 0;  ///< >0: give the program (cicc, ptxas) its part of the free job slots
  std::optional<FatbinEmbedding> embedding;  ///< the program is fatbinary, or a host compile to embed
                                             ///< a fatbin for (with an early object)
  /// The program is fatbinary, whose output to join from these fatbins of
  /// one image each (GraphStep::fatbin_images; StitchFatbin).
  std::vector<std::string> fatbin_images;
  std::string blank_disabled;      ///< an output whose `#if 0` blocks to blank (host_source.h)
  bool never_keep_incbin = false;  ///< GraphStep::never_keep_incbin
  std::string response_key;        ///< GraphStep::response_key: read by no one, it changes the command
  StubInclude stub_include;        ///< cudafe++ through a cache: the stub name to restore
  /// Big intermediates that this step alone reads (StubbedIntermediates):
  /// regenerated first where they are stubs, stubbed after a success.
  std::vector<std::string> stubbed_inputs;
  /// Inputs that may be stubs from another configuration's build
  /// (InputsThatMayBeStubs): regenerated first where they are, never stubbed.
  std::vector<std::string> regenerated_inputs;
  /// Outputs whose reader stubs them: one that comes out as its stub says
  /// keeps the stub.
  std::vector<std::string> stubbed_by_reader;
  /// Outputs that no step reads (UnreadIntermediates): stubbed after a success.
  std::vector<std::string> stubbed_outputs;
  /// The manifest Ninja runs this step from, which names the command of
  /// each stubbed input's producer (ProducerInManifest); none: the step's
  /// inputs stay whole.
  std::string manifest;
  /// Set where a reader runs this step again to get a stubbed
  /// body back (never on a command line): a body that comes out as its
  /// stub says stays whole, with the stub's mtime.
  bool restores_body = false;
  /// On success, copy `ninja_depfile_from` (the TU's merged depfile; none:
  /// an empty one) to `ninja_depfile`, which Ninja reads and removes (`deps = gcc`).
  std::string ninja_depfile_from;
  std::string ninja_depfile;
  /// With `made_by`: the files the program reads. Ninja reruns an object's
  /// edge for a header in its deps log, which reaches the host compile only
  /// through these; when `made_by` says that this very command made the
  /// outputs from them as they are now (mtimes), the program does not run again.
  std::vector<std::string> reads;
  std::string made_by;
  /// The program asks a whole-call cache without compiling (kCacheLookup):
  /// the first output gets "hit" or "miss", the second the cache's object,
  /// `cache.dyndep` (the third) what `waiters` wait for after that outcome.
  bool cache_lookup = false;
  /// The lookup's: the edges its dyndep file describes, with their inputs
  /// after a hit and after a miss.
  std::vector<LookupWaiter> waiters;
  /// What the lookup's result asks of this step (AddWholeCallCache); its
  /// `dyndep` and `on_hit` are the generator's, an option of the lookup only.
  WholeCallCacheUse cache;
  std::vector<std::string> argv;  ///< the program's command

  /// The options every step of a manifest shares (environment file, memory
  /// log, the reads log of the steps that read the sources): the generator
  /// writes them once, into the rules and file-level variables.
  std::vector<std::string> SharedWords() const;
  /// The step's own options, which its edge binds.
  std::vector<std::string> OwnWords() const;
  /// `--` and the program's command.
  std::vector<std::string> CommandWords() const;
  /// The whole command line after `fastcuda step`: SharedWords, OwnWords,
  /// the outputs, CommandWords.
  std::vector<std::string> Words() const;

  /// Reads a command line as Words writes it, the parts in any order.
  /// Throws std::invalid_argument on anything else.
  static StepInvocation Parse(const std::vector<std::string>& args);
};

/// The program's own TMPDIR under `temp_root`, named after the step's
/// outputs (no two steps of a build share one, and each run reuses its
/// step's); "" without a `temp_root` or outputs, or where it `keeps_tmpdir`.
std::string StepTempDir(const StepInvocation& step);

/// The user's nvcc edge that a `fastcuda ninja` TU's steps stand for, as
/// Ninja reports it failing: its object (as the manifest names it) and its
/// command.
struct FailureNote {
  std::string object;
  std::string command;
  bool exit_code_shown = false;  ///< Ninja 1.13 and later: `FAILED: [code=N] OBJECT `
};

/// The notes of a graph's TUs, by key (the TU's work dir), in one file
/// that a step reads only when it fails: four lines a note, the key, `code`
/// or `plain`, the object and the command (Ninja's paths and commands hold
/// no newline).
std::string FormatFailureNotes(const std::vector<std::pair<std::string, FailureNote>>& notes);
/// The note of `key` in `text` (FormatFailureNotes); nullopt where it has none.
std::optional<FailureNote> FindFailureNote(const std::string& text, const std::string& key);

/// What Ninja prints when the edge of `note` fails with `exit_code`: the
/// `FAILED:` line (red where Ninja shows colour: it strips the escapes from
/// a step's output where it does not) and the command.
std::string FailedEdgeLines(const FailureNote& note, int exit_code);

/// What a step printed and how it ended: saved by `fastcuda step --capture
/// PREFIX`, replayed by the launcher in nvcc's order.
struct CapturedOutput {
  std::string stdout_text;
  std::string stderr_text;
  int exit_code = 0;
};

/// Writes PREFIX.out, PREFIX.err and PREFIX.rc, each atomically; for a
/// success that printed nothing, removes them (ReadCapture: nullopt, which
/// replays as nothing).
void WriteCapture(const std::string& prefix, const CapturedOutput& output, WritableFileSystem& fs);

/// What WriteCapture saved under `prefix`; nullopt while the step has not
/// run or printed nothing and succeeded (no PREFIX.rc).
std::optional<CapturedOutput> ReadCapture(const std::string& prefix, const FileSystem& fs);

}  // namespace fastcuda

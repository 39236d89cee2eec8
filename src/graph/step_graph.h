// The dependency graph of one nvcc call's sub-steps, with stable file names.
#pragma once

#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "src/base/file_system.h"
#include "src/graph/compile_modes.h"
#include "src/graph/fatbin_embedding.h"
#include "src/graph/host_source.h"
#include "src/graph/launchers.h"
#include "src/nvcc/nvcc_options.h"
#include "src/nvcc/step.h"
#include "src/nvcc/transcript.h"

namespace fastcuda {

/// Thrown when a transcript holds something FastCuda does not split; the
/// caller runs nvcc itself instead.
struct UnsupportedTranscript : std::runtime_error {
  using std::runtime_error::runtime_error;
};

/// What a step does about the whole-call cache (AddWholeCallCache).
struct WholeCallCacheUse {
  /// The lookup's result file: on "hit" the step does not run its program,
  /// and leaves its outputs as they are (made empty where missing); the
  /// user depfile's merge merges `on_hit` alone.
  std::string result;
  std::string hit_object;  ///< on a hit, the step's first output is a copy of this (the cache's object)
  /// On a miss, after the step made the object: the cache's command that
  /// stores it, and the depfiles whose headers go with it (for the lookup
  /// itself: whose headers Ninja keeps as its inputs after a miss).
  std::vector<std::string> store;
  std::vector<std::string> store_depfiles;
  /// The lookup's dyndep file. The lookup writes it (its third output); the
  /// steps that must run on a hit too (the object's, the user's depfile's)
  /// wait for the lookup through it alone: on a hit it gives their edges
  /// `on_hit`, on a miss every file they read and every step they wait for,
  /// so that on a hit Ninja runs no other step of the TU.
  std::string dyndep;
  std::vector<std::string> on_hit;
};

/// A step placed in the graph.
struct GraphStep : Step {
  std::vector<std::string> inputs;  ///< files it reads that are produced here or exist
  std::vector<size_t> after;        ///< indexes of the steps it must wait for
  std::string depfile;              ///< preprocess: the header depfile it writes; ptxas: line_table_ptx's
  std::string depfile_from;         ///< nvcc run whole: the user's depfile, which `depfile` copies
  std::string kept_depfile;         ///< preprocess: a copy kept for the user's depfile
  /// ptxas with line information (-lineinfo, -G): its PTX, whose `.file`
  /// sources ptxas reads the mtime and size of into the cubin. `fastcuda
  /// step` lists them in `depfile` (LineTablePath + ".d"), so that a touched
  /// source reruns it.
  std::string line_table_ptx;
  std::string module_id;   ///< kModuleId: the id it writes
  int split_share = 0;     ///< auto split-compile: the TU's arch chains, which start together
  FatbinEmbedding fatbin;  ///< early host: the layout (kFatbinPlaceholder), the bytes too
                           ///< (kFatbinary), all of it (kEmbedFatbin)
  /// kFatbinStitch: the fatbins of one image each that it joins, in the
  /// order of fatbinary's images (SplitFatbinary).
  std::vector<std::string> fatbin_images;
  std::string host_source;   ///< early host, kCudafe: the `.cudafe1.cpp` to blank device code in
  StubInclude stub_include;  ///< kCudafe through a cache: the stub name to restore after a hit
  /// HandDepfileToNinja: the user's depfile this step writes, on success,
  /// from the merged one (`ninja_depfile_from`), for Ninja to read.
  std::string ninja_depfile;
  std::string ninja_depfile_from;
  WholeCallCacheUse cache;    ///< AddWholeCallCache: what a lookup's hit or miss asks of this step
  size_t launcher_words = 0;  ///< how many words at the front of argv are its launcher (LauncherFor)
  /// nvcc run whole where it can name no depfile: what it read is unknown,
  /// so the step runs in every build.
  bool reruns_always = false;
  /// Host preprocessing and cudafe++: an output that holds an assembler
  /// directive reading a file (AssemblesOtherFiles) is never kept as
  /// unchanged, so that the host compile runs whenever they do, and reads
  /// that file anew as nvcc would (ccache, too, caches no such code).
  bool never_keep_incbin = false;
  /// A hash of the contents of the response files the step reads, or "":
  /// part of its command (`fastcuda step --response-key`), so that Ninja
  /// reruns it after an edit that left an older mtime (a restore), where
  /// the graph is written anew (the launcher's, on every call).
  std::string response_key;
  /// A host compile of the TU's source itself (C or C++, which nvcc hands
  /// to the host compiler whole): it reads the source's headers, which it
  /// lists in `depfile`, and it reruns where preprocessing does.
  bool compiles_source = false;
};

/// Where the graph lives and what it was asked for.
struct StepGraphOptions {
  std::string cwd;       ///< absolute directory nvcc ran in (and the steps run in)
  std::string work_dir;  ///< absolute directory for the temporaries
  DepfileRequest depfile;
  bool keep_depfiles = false;  ///< keep every preprocess depfile even without -MD
  StepLaunchers launchers;     ///< what runs which steps (see LauncherFor)
  CompileModes modes;          ///< module id and split-compile modes
  /// Set for every step beside the transcript's own variables (see
  /// ToolchainEnvironment), so that a change of one reruns the steps.
  std::map<std::string, std::string> toolchain_environment;
  /// The source as the command names it: an input of the steps that name
  /// it even where it does not exist yet (another edge generates it).
  std::string source;
};

/// All sub-steps of one nvcc call, in nvcc's order but where FastCuda adds or
/// moves one (a whole-call cache's lookup first, a depfile that the object
/// waits for before it): a topological order, each step waiting only for
/// steps listed before it, which the readers that walk the steps in order
/// (and those of steps.json) rely on. MoveStep keeps it.
struct StepGraph {
  std::vector<GraphStep> steps;
  std::map<std::string, std::string> environment;  ///< set for every step
  std::string cwd;
  std::string work_dir;
  std::string source;                      ///< the source being compiled, for descriptions
  std::vector<std::string> final_outputs;  ///< what nvcc was asked to write
  DepfileRequest depfile_request;          ///< how to write the user's depfile, if asked for
  /// What every step waits for besides its own inputs: the implicit and
  /// order-only inputs of the generator's edge the graph replaces.
  std::vector<std::string> implicit_inputs;
  std::vector<std::string> order_only_inputs;
};

/// For a graph whose user depfile Ninja reads with `deps = gcc` (see
/// CompileEntry::ninja_reads_depfile): Ninja records a depfile's headers for
/// the outputs of the edge that names it, and removes it, so the step that
/// makes the object names it and writes it last, from the merged depfile,
/// which the filter step now writes into the work dir and keeps, listed
/// before the object's step. Returns false (and changes nothing) where the
/// graph has no user depfile, its object comes from no step that `fastcuda
/// step` runs, or the filter step waits for a step listed from the object's on.
bool HandDepfileToNinja(StepGraph& graph);

/// For a graph whose generator's edge has Ninja read a depfile that nvcc is
/// not asked to write (Meson 1.0's nvcc rule: `deps = gcc`, no -MD): Ninja
/// then records that the object read no header, and rebuilds an object
/// without that record ("deps for ... are missing"). So the step that makes
/// the object hands Ninja an empty depfile. Returns false (and changes
/// nothing) where the graph has a user depfile (HandDepfileToNinja) or its
/// object comes from no step that `fastcuda step` runs.
bool HandEmptyDepfileToNinja(StepGraph& graph);

/// Whether Ninja's deps log, once the steps ran, names for the graph's
/// object every file they read that the generator's edge does not name
/// itself (its source, its implicit inputs): the user's depfile is merged
/// from every depfile of a step that reads headers (HandDepfileToNinja),
/// and no step reads another file from outside, but its own program (a
/// `-ccbin` script, an input of its steps), whose identity `fastcuda
/// ninja` checks before it asks plain ninja (ChangedPrograms). Then whatever would rerun
/// a step makes plain ninja rerun the generator's edge too, and plain ninja
/// can tell that a build of the steps has nothing to do. Not where a step
/// reruns always, nvcc runs whole or a whole-call cache decides (its dyndep
/// files name what Ninja learns only as it runs).
bool NinjaSeesEveryRead(const StepGraph& graph);

/// The index of the last step of `graph` that writes `path`, if any.
std::optional<size_t> StepWriting(const StepGraph& graph, const std::string& path);

/// Makes `step` wait for step `earlier` of its graph, once; `earlier` is
/// listed before it (MoveStep puts it there).
void WaitFor(GraphStep& step, size_t earlier);

/// Lists step `moved` of `graph` at index `at` (at most `moved`): the steps
/// from `at` to it come one later, and every wait is renumbered. Returns
/// false, changing nothing, where `moved` waits for a step listed from `at`
/// on: it has no place there that keeps the order topological.
[[nodiscard]] bool MoveStep(StepGraph& graph, size_t moved, size_t at);

/// Makes step `*waiting` wait for step `*waited`, moving `*waited` before it
/// where it is listed after (MoveStep); both indices follow the move.
/// Returns false, changing nothing, where `*waited` cannot go there.
[[nodiscard]] bool WaitForMovingItBefore(StepGraph& graph, size_t* waiting, size_t* waited);

/// The path of the file a step touches when it has no output of its own.
std::string StampPath(const StepGraph& graph, size_t step_index);

/// Where ptxas keeps what its line table depends on (GraphStep::line_table_ptx),
/// `.d` and `.made-by` appended: in the work dir, named after its first output,
/// never beside a file the user asked for (`-cubin -MD` writes `k.cubin.d`).
std::string LineTablePath(const std::string& work_dir, const GraphStep& step);

/// The first file a step leaves behind (its first output, else its stamp),
/// which other edges can wait on.
std::string Landmark(const StepGraph& graph, size_t index);

/// Builds the graph: renames temporaries into the work dir, drops `rm`s,
/// adds header depfiles to the preprocess steps and links every step to the
/// steps that write what it reads, including files reached through
/// `#include` of generated sources (`.stub.c`, `.fatbin.c`). Throws
/// UnsupportedTranscript.
StepGraph BuildStepGraph(const Transcript& transcript, const StepGraphOptions& options, const FileSystem& fs);

}  // namespace fastcuda

// A step graph written as Ninja build edges.
#pragma once

#include <map>
#include <string>

#include "ninja-gen/ninja_writer.h"
#include "src/graph/step_graph.h"
#include "src/plan/pool_depths.h"

namespace fastcuda {

/// How the edges of a step graph are written.
struct FragmentOptions {
  std::string fastcuda;       ///< the fastcuda executable, which runs every step
  std::string env_file;       ///< holds the graph's environment (see WriteEnvironmentFile)
  std::string ninja_cwd;      ///< directory Ninja runs in; other relative paths are made absolute
  std::string capture_dir;    ///< non-empty: steps save their output there (launcher mode)
  std::string failure_notes;  ///< non-empty: StepInvocation::failure_notes (`fastcuda ninja`)
  std::string failure_note;   ///< with `failure_notes`: the graph's StepInvocation::failure_note
  std::string memory_log;     ///< non-empty: steps append their peak memory there
  /// Non-empty: the steps that read the sources append when they started
  /// there (StepInvocation::reads_log).
  std::string reads_log;
  std::string temp_root;  ///< non-empty: the steps' programs' TMPDIRs go there (StepTempDir)
  std::string lock_dir;   ///< non-empty: the steps' StepGate and memory ledger (StepInvocation::lock_dir)
  /// The manifest Ninja runs, which names every step's command (StepInvocation::manifest).
  std::string manifest;
  /// Non-empty: the edge that writes each object is described by its
  /// ObjectLine from this directory, which `fastcuda build --object-lines`
  /// prints under make.
  std::string object_lines_top;
  /// The preprocessing steps and the whole-call cache's lookup run in every
  /// build: the kept intermediates are then checked by content, not by mtime
  /// (a launcher call, where nvcc would read the sources anew whatever their
  /// mtimes say).
  bool rerun_preprocessing = false;
};

/// A path of `graph`'s steps as Ninja, running in `ninja_cwd`, names it:
/// relative paths belong to the steps' directory, which need not be Ninja's.
std::string NinjaPath(const StepGraph& graph, const std::string& ninja_cwd, const std::string& path);

/// Writes the rules, pools and top-level variables that every edge uses,
/// once per manifest: the tool, the environment file and the memory log of
/// `shared` become `$fastcuda`, `$env` and `$step_options`, its reads log
/// `$read_options` of the rules that read the sources.
void WriteStepRules(NinjaWriter& writer, const PoolDepths& pools, const FragmentOptions& shared);

/// Writes one build edge per step of `graph`, after binding the file-level
/// `w` to its work dir; an environment file other than `shared_env_file`
/// (the top-level `$env`) is bound on the edge.
void WriteStepEdges(NinjaWriter& writer, const StepGraph& graph, const FragmentOptions& options,
                    const std::string& shared_env_file);

/// The dyndep file that `graph`'s whole-call cache lookup writes: where, and
/// its text after a miss and after a hit.
struct LookupDyndep {
  std::string path;
  std::string miss;
  std::string hit;
};
/// nullopt for a graph without a lookup.
std::optional<LookupDyndep> LookupDyndepOf(const StepGraph& graph, const FragmentOptions& options);

/// A complete manifest for one graph: rules, edges, and its outputs as the
/// default targets. `builddir` (may be empty) is where Ninja keeps its logs.
std::string SingleGraphManifest(const StepGraph& graph, const FragmentOptions& options,
                                const PoolDepths& pools, const std::string& builddir);

/// The target a graph's user depfile names: -MT, else the first object.
std::string DepfileTarget(const StepGraph& graph);

}  // namespace fastcuda

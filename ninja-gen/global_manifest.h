// The manifest of a whole compile database: one graph for all CUDA TUs.
#pragma once

#include <map>
#include <set>
#include <string>
#include <vector>

#include "ninja-gen/fragment.h"
#include "ninja-gen/priority_ladder.h"
#include "src/graph/step_graph.h"
#include "src/plan/critical_path.h"
#include "src/plan/step_protocol.h"

namespace fastcuda {

/// What the top-level manifest needs besides the graphs.
struct GlobalManifestOptions {
  std::string out_dir;                          ///< absolute; Ninja runs here
  std::string fastcuda;                         ///< the executable running the steps
  std::vector<std::string> regenerate_command;  ///< the `fastcuda gen` call that wrote this
  std::vector<std::string> regenerate_inputs;   ///< database, fastcuda, nvcc binaries
  PoolDepths pools;
  StepDurations history;         ///< from the last build's .ninja_log
  unsigned jobs = 1;             ///< Ninja's job count (memory plan), threads writing edges
  bool priority_ladder = false;  ///< rank steps by remaining time (Ninja 1.12+)
  bool capture_output = false;   ///< steps save what they print in their TU's CaptureDir
  std::string object_lines_top;  ///< FragmentOptions::object_lines_top
  /// Non-empty: the graph is part of a generator's manifest that Ninja runs
  /// in this directory (`fastcuda ninja`), which reads it as a subninja from
  /// StepsManifestPath: no regeneration edge and no `all` of its own.
  std::string part_of_manifest_in;
  /// Part of a manifest that names default targets: the priority ladder's
  /// rungs join them (else Ninja builds them as it builds every root).
  bool manifest_has_defaults = false;
  /// Objects (as Ninja names them) that the manifest's defaults do not need
  /// (a generator's targets built on request): their TUs stay off the
  /// ladder and out of the lookup pass, which would build them.
  std::set<std::string> not_by_default;
  /// Part of a manifest: each graph's nvcc edge there, which its steps name
  /// when they fail (FailureNotesPath); none, or one per graph.
  std::vector<FailureNote> failure_notes;
};

/// The phony target that makes every whole-call cache lookup's dyndep file
/// and the priority ladder's: what a build runs first (LookupPassPath).
inline constexpr const char* kLookupPassTarget = "fastcuda_cache_lookups";

/// Every file of the manifest, by absolute path: `OUT/build.ninja` (rules,
/// the regeneration edge, the edges of every TU, `all`; as a part of a
/// manifest `OUT/steps.ninja`, without the edge and `all`), one environment
/// file per distinct environment under `OUT/env/`, LookupPassPath (with
/// kLookupPassTarget where the graph has whole-call cache lookups), the
/// ladder's dyndep plan where it has cached TUs, and each TU's
/// FailureNotesPath where `failure_notes` are given. TUs are ordered by their
/// expected critical path, longest first, so that Ninja versions without
/// critical-path scheduling (before 1.12) start the long chains first; with
/// `priority_ladder` and a history, a PriorityLadder ranks every step by its
/// remaining time for the Ninja versions that have it.
std::map<std::string, std::string> GlobalManifestFiles(const std::vector<StepGraph>& graphs,
                                                       const GlobalManifestOptions& options);

/// A file that a dry run needs and a build writes itself: the generation
/// writes `text` unless the file holds it, one of `kept_if` (what a build may
/// have written that is still right), or anything where `keeps_any`.
struct DryRunFile {
  std::string text;
  std::vector<std::string> kept_if;
  bool keeps_any = false;
};

/// The dyndep files as a build finds them before any lookup ran, so that a
/// dry run (`ninja -n`), which runs no lookup, can load them: each
/// whole-call cache lookup's as a miss writes it (kept if it holds a hit's
/// text: one of another graph is rewritten, whose waiters a dry run would
/// not find), and the ladder's (from its plan in `files`, what
/// GlobalManifestFiles gave) as it is when every lookup missed, written only
/// where none exists (its steps of the TUs whose lookup hit would run).
std::map<std::string, DryRunFile> DryRunDyndepFiles(const std::vector<StepGraph>& graphs,
                                                    const GlobalManifestOptions& options,
                                                    const std::map<std::string, std::string>& files);

/// True when `options.history` has a time for a step of `graphs` that another
/// step waits for: measured step times. An object's own time may be a whole
/// nvcc call's, which the generator's Ninja recorded (`fastcuda ninja`).
bool HistoryHasStepTimes(const std::vector<StepGraph>& graphs, const GlobalManifestOptions& options);

}  // namespace fastcuda

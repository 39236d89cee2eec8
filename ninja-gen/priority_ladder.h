// The priority ladder (src/plan/priority_ladder_plan.h) written as Ninja
// edges, and the dyndep file that gives its rungs the steps of the TUs whose
// cache lookup missed.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "ninja-gen/ninja_writer.h"
#include "src/graph/step_graph.h"
#include "src/plan/priority_ladder_plan.h"

namespace fastcuda {

/// What `fastcuda ladder-dyndep` reads: the files of the rungs whose edges
/// name the ladder's dyndep file, by rung k, and the cached TUs' files.
struct LadderDyndepPlan {
  std::map<size_t, std::string> rungs;
  std::vector<CachedTuRungs> tus;
};

/// The plan as its file holds it (JSON), and back (throws
/// std::runtime_error for text that is not one).
std::string FormatLadderDyndepPlan(const LadderDyndepPlan& plan);
LadderDyndepPlan ParseLadderDyndepPlan(std::string_view text);

/// The ladder's dyndep file: each rung of `plan` waits for the files of the
/// TUs whose lookup did not hit (`hit`, given a result file).
std::string LadderDyndepText(const LadderDyndepPlan& plan,
                             const std::function<bool(const std::string&)>& hit);

/// What WritePriorityLadder wrote, for the rest of the manifest.
struct WrittenLadder {
  std::vector<std::string> targets;     ///< rung 1's file, for `all` to build; none for an empty ladder
  std::vector<std::string> rung_files;  ///< every rung's file, which the generation writes (empty)
  /// With cached TUs: the ladder's dyndep file, and its plan (a file the
  /// manifest's generator writes, at `plan_path`).
  std::string dyndep;
  std::string plan_path;
  std::string plan_text;
};

/// Writes the ladder's rules and rungs (files under `dir`), and with cached
/// TUs the edge that writes the ladder's dyndep file (`$fastcuda
/// ladder-dyndep`) once their lookups have run.
WrittenLadder WritePriorityLadder(NinjaWriter& writer, const PriorityLadder& ladder, const std::string& dir);

}  // namespace fastcuda

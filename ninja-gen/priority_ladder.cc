#include "ninja-gen/priority_ladder.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "ninja-gen/dyndep.h"
#include "ninja-gen/fragment.h"
#include "src/base/json_bytes.h"
#include "src/graph/whole_call_cache.h"
#include "src/plan/graph_dir.h"

namespace fastcuda {
std::string FormatLadderDyndepPlan(const LadderDyndepPlan& plan) {
  nlohmann::json rungs = nlohmann::json::array(), tus = nlohmann::json::array();
  for (const auto& [k, file] : plan.rungs) rungs.push_back({k, file});
  for (const CachedTuRungs& tu : plan.tus) {
    nlohmann::json inputs = nlohmann::json::array();
    for (const auto& [k, files] : tu.inputs) inputs.push_back({k, files});
    tus.push_back({{"result", tu.result}, {"inputs", inputs}});
  }
  return DumpJsonBytes({{"rungs", rungs}, {"tus", tus}}) + "\n";
}

LadderDyndepPlan ParseLadderDyndepPlan(std::string_view text) {
  LadderDyndepPlan plan;
  try {
    nlohmann::json json = ParseJsonBytes(text);
    for (const nlohmann::json& rung : json.at("rungs")) {
      plan.rungs[rung.at(0).get<size_t>()] = rung.at(1).get<std::string>();
    }
    for (const nlohmann::json& tu : json.at("tus")) {
      CachedTuRungs& cached = plan.tus.emplace_back();
      cached.result = tu.at("result").get<std::string>();
      for (const nlohmann::json& rung : tu.at("inputs")) {
        cached.inputs[rung.at(0).get<size_t>()] = rung.at(1).get<std::vector<std::string>>();
      }
    }
  } catch (const nlohmann::json::exception& error) {
    throw std::runtime_error(std::string("not a ladder's dyndep plan: ") + error.what());
  }
  return plan;
}

std::string LadderDyndepText(const LadderDyndepPlan& plan,
                             const std::function<bool(const std::string&)>& hit) {
  std::map<size_t, DyndepEdge> edges;
  for (const auto& [k, file] : plan.rungs) edges[k].output = file;
  for (const CachedTuRungs& tu : plan.tus) {
    if (hit(tu.result)) continue;
    for (const auto& [k, files] : tu.inputs) {
      std::vector<std::string>& inputs = edges[k].implicit_inputs;
      inputs.insert(inputs.end(), files.begin(), files.end());
    }
  }
  std::vector<DyndepEdge> rungs;
  for (auto& [k, edge] : edges) rungs.push_back(std::move(edge));
  return DyndepFileText(rungs);
}

WrittenLadder WritePriorityLadder(NinjaWriter& writer, const PriorityLadder& ladder, const std::string& dir) {
  WrittenLadder written;
  if (ladder.rungs.empty()) return written;
  writer.Comment("Priority ladder: " + std::to_string(ladder.quantum_ms) +
                 " ms of remaining path per rung (see ninja-gen/priority_ladder.h)");
  // A rung waits for everything order-only and its file is the generation's
  // (generator: no log entry needed, kept by `ninja -t clean`), so it is
  // clean and starts no process, while Ninja 1.12+ still ranks through it:
  // its critical path walks every input of every edge its targets reach,
  // clean or not. It runs (a shell builtin, the cheapest command) only where
  // the ladder's dyndep file gave it a cached TU's step that ran since.
  writer.Rule({"FASTCUDA_RUNG", {{"command", ": > $out"}, {"description", "rung $out"}, {"generator", "1"}}});
  LadderDyndepPlan plan;
  plan.tus = ladder.cached;
  for (const CachedTuRungs& tu : ladder.cached) {
    for (const auto& [k, files] : tu.inputs) plan.rungs[k] = RungPath(dir, k);
  }
  if (!plan.rungs.empty()) {
    written.dyndep = LadderDyndepPath(dir);
    written.plan_path = LadderDyndepPlanPath(dir);
    written.plan_text = FormatLadderDyndepPlan(plan);
    // restat: the file is rewritten only when a lookup's outcome changes it.
    writer.Rule({"FASTCUDA_LADDER_DYNDEP",
                 {{"command", "$fastcuda ladder-dyndep $in $out"},
                  {"description", "the ladder's steps of the TUs whose cache lookup missed"},
                  {"restat", "1"}}});
    NinjaBuild build;
    build.outputs = {written.dyndep};
    build.rule = "FASTCUDA_LADDER_DYNDEP";
    build.inputs = {written.plan_path};
    for (const CachedTuRungs& tu : ladder.cached) build.implicit_inputs.push_back(tu.result);
    writer.Build(build);
  }
  for (size_t k = ladder.rungs.size(); k >= 1; --k) {
    NinjaBuild rung;
    rung.outputs = {RungPath(dir, k)};
    rung.rule = "FASTCUDA_RUNG";
    rung.order_only_inputs = ladder.rungs[k - 1];
    if (plan.rungs.contains(k)) {
      rung.order_only_inputs.push_back(written.dyndep);
      rung.variables.push_back({"dyndep", written.dyndep});
    }
    if (k < ladder.rungs.size()) rung.order_only_inputs.push_back(RungPath(dir, k + 1));
    writer.Build(rung);
    written.rung_files.push_back(RungPath(dir, k));
  }
  written.targets = {RungPath(dir, 1)};
  return written;
}

}  // namespace fastcuda

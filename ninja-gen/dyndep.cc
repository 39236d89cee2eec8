#include "ninja-gen/dyndep.h"

#include "ninja-gen/ninja_writer.h"

namespace fastcuda {

std::string DyndepFileText(const std::vector<DyndepEdge>& edges) {
  NinjaWriter writer;
  writer.Variable("ninja_dyndep_version", "1");
  for (const DyndepEdge& edge : edges) {
    NinjaBuild build;
    build.outputs = {edge.output};
    build.rule = "dyndep";
    build.implicit_inputs = edge.implicit_inputs;
    writer.Build(build);
  }
  return writer.text();
}

std::string LookupDyndepText(const std::vector<LookupWaiter>& waiters, bool hit) {
  std::vector<DyndepEdge> edges;
  for (const LookupWaiter& waiter : waiters)
    edges.push_back({waiter.output, hit ? waiter.on_hit : waiter.on_miss});
  return DyndepFileText(edges);
}

}  // namespace fastcuda

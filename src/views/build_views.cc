#include "src/views/build_views.h"

#include <algorithm>
#include <cstdio>
#include <map>
#include <nlohmann/json.hpp>
#include <set>

#include "src/base/json_bytes.h"

namespace fastcuda {
namespace {

using nlohmann::json;

std::string Seconds(int64_t ms) {
  char text[32];
  std::snprintf(text, sizeof text, "%.2f s", ms / 1000.0);
  return text;
}

/// Escapes text for SVG and DOT labels.
std::string Escape(const std::string& text) {
  std::string out;
  for (char c : text) {
    switch (c) {
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '&':
        out += "&amp;";
        break;
      case '"':
        out += "&quot;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

std::string Colour(const std::string& kind) {
  static const std::map<std::string, std::string> colours = {
      {"CPP_HOST", "#9ecae1"}, {"CPP_DEVICE", "#c6dbef"}, {"CUDAFE", "#fdae6b"},
      {"CICC", "#e6550d"},     {"PTXAS", "#31a354"},      {"FATBINARY", "#a1d99b"},
      {"NVLINK", "#756bb1"},   {"HOST_CC", "#3182bd"},    {"DEPFILE", "#bdbdbd"}};
  auto it = colours.find(kind);
  return it == colours.end() ? "#969696" : it->second;
}

/// "step cache, as the launchers said:" and a line per step kind with hits
/// and misses (and of those, the ones FastCuda's remote client ran on an
/// idle local core: "here"), or nothing where no launcher said.
std::string StepCacheOutcomes(const Timeline& timeline) {
  struct Counts {
    int hits = 0, misses = 0, here = 0;
  };
  std::map<std::string, Counts> by_kind;
  for (const TimedStep& step : timeline.steps) {
    if (step.cache.empty()) continue;
    Counts& counts = by_kind[timeline.Step(step).kind];
    ++(step.cache == "hit" ? counts.hits : counts.misses);
    counts.here += step.cache == "here";
  }
  if (by_kind.empty()) return "";
  std::string text = "\nstep cache, as the launchers said:\n";
  for (const auto& [kind, counts] : by_kind) {
    char line[128];
    std::snprintf(line, sizeof line, "  %-10s %5d hit %5d miss", kind.c_str(), counts.hits, counts.misses);
    text += line;
    text += counts.here ? ", " + std::to_string(counts.here) + " of them run on idle local cores\n" : "\n";
  }
  return text;
}

/// The limits the graph was planned with, and where each came from: what
/// to look at when a build swaps or leaves CPUs idle.
std::string PlannedWith(const std::optional<PlannedLimits>& planned) {
  if (!planned) return "";
  char budget[64];
  std::snprintf(budget, sizeof budget, "%.1f GiB", planned->memory_budget_kib / (1024.0 * 1024.0));
  return "planned with: memory budget " + std::string(budget) + ": " + planned->memory_source + "\n" +
         "              jobs " + std::to_string(planned->jobs) + ": " + planned->jobs_source + "\n";
}

}  // namespace

std::string TraceJson(const Timeline& timeline) {
  json events = json::array();
  for (size_t t = 0; t < timeline.tus.size(); ++t) {
    events.push_back({{"name", "process_name"},
                      {"ph", "M"},
                      {"pid", t + 1},
                      {"args", {{"name", timeline.tus[t].source}}}});
  }
  // Within a TU, steps that overlap go to separate threads so that the
  // viewers do not nest them.
  std::map<size_t, std::vector<int64_t>> lanes;  // tu -> busy until, per lane
  for (const TimedStep& step : timeline.steps) {
    std::vector<int64_t>& busy = lanes[step.tu];
    size_t lane = 0;
    while (lane < busy.size() && busy[lane] > step.start_ms) ++lane;
    if (lane == busy.size()) busy.push_back(0);
    busy[lane] = step.end_ms;
    json args = {{"output", timeline.Step(step).output}};
    if (step.peak_kib > 0) args["peak_rss_kib"] = step.peak_kib;
    if (step.output_bytes >= 0) args["output_bytes"] = step.output_bytes;
    events.push_back({{"name", timeline.Name(step)},
                      {"cat", timeline.Step(step).kind},
                      {"ph", "X"},
                      {"pid", step.tu + 1},
                      {"tid", lane},
                      {"ts", step.start_ms * 1000},
                      {"dur", (step.end_ms - step.start_ms) * 1000},
                      {"args", args}});
  }
  return DumpJsonBytes(json{{"traceEvents", events}, {"displayTimeUnit", "ms"}}, 1) + "\n";
}

std::string TimelineSvg(const Timeline& timeline) {
  const int width = 1200, left = 10, lane_height = 18, top = 30;
  std::vector<size_t> slots = JobSlots(timeline);
  size_t lanes = slots.empty() ? 1 : *std::max_element(slots.begin(), slots.end()) + 1;
  std::vector<size_t> chain = CriticalChain(timeline);
  std::set<size_t> on_chain(chain.begin(), chain.end());
  double scale = (width - 2.0 * left) / std::max<int64_t>(1, timeline.wall_ms);
  std::set<std::string> kinds;
  int legend_top = top + static_cast<int>(lanes) * lane_height + 30;
  char buffer[512];
  std::string svg;
  std::snprintf(
      buffer, sizeof buffer,
      "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
      "font-family=\"sans-serif\" font-size=\"11\">\n<rect width=\"100%%\" height=\"100%%\" "
      "fill=\"white\"/>\n<text x=\"%d\" y=\"18\">FastCuda build: %s wall, %zu steps, %zu job slots; "
      "critical chain outlined (%zu steps)</text>\n",
      width, legend_top + 40, left, Seconds(timeline.wall_ms).c_str(), timeline.steps.size(), lanes,
      chain.size());
  svg += buffer;
  for (size_t i = 0; i < timeline.steps.size(); ++i) {
    const TimedStep& step = timeline.steps[i];
    const std::string& kind = timeline.Step(step).kind;
    kinds.insert(kind);
    bool critical = on_chain.count(i) > 0;
    std::snprintf(buffer, sizeof buffer,
                  "<rect x=\"%.1f\" y=\"%d\" width=\"%.1f\" height=\"%d\" fill=\"%s\" stroke=\"%s\" "
                  "stroke-width=\"%d\"><title>",
                  left + step.start_ms * scale, top + static_cast<int>(slots[i]) * lane_height,
                  std::max(1.0, (step.end_ms - step.start_ms) * scale), lane_height - 2, Colour(kind).c_str(),
                  critical ? "black" : "none", critical ? 2 : 0);
    svg += buffer;
    svg += Escape(timeline.Name(step) + ": " + Seconds(step.end_ms - step.start_ms));
    svg += "</title></rect>\n";
  }
  int axis = top + static_cast<int>(lanes) * lane_height + 12;
  for (int tick = 0; tick <= 10; ++tick) {
    std::snprintf(buffer, sizeof buffer, "<text x=\"%.1f\" y=\"%d\">%s</text>\n",
                  left + tick * (width - 2.0 * left - 40) / 10, axis,
                  Seconds(timeline.wall_ms * tick / 10).c_str());
    svg += buffer;
  }
  int x = left;
  for (const std::string& kind : kinds) {
    std::snprintf(buffer, sizeof buffer,
                  "<rect x=\"%d\" y=\"%d\" width=\"12\" height=\"12\" fill=\"%s\"/>"
                  "<text x=\"%d\" y=\"%d\">%s</text>\n",
                  x, legend_top, Colour(kind).c_str(), x + 16, legend_top + 10, Escape(kind).c_str());
    svg += buffer;
    x += 110;
  }
  return svg + "</svg>\n";
}

std::string BuildReport(const Timeline& timeline, unsigned jobs) {
  std::vector<size_t> slots = JobSlots(timeline);
  size_t used = slots.empty() ? 1 : *std::max_element(slots.begin(), slots.end()) + 1;
  if (jobs == 0) jobs = static_cast<unsigned>(used);
  int64_t total = 0;
  std::map<std::string, std::pair<int64_t, int>> per_kind;  // kind -> (ms, count)
  for (const TimedStep& step : timeline.steps) {
    int64_t duration = step.end_ms - step.start_ms;
    total += duration;
    per_kind[timeline.Step(step).kind].first += duration;
    ++per_kind[timeline.Step(step).kind].second;
  }
  std::vector<int64_t> chains = LongestChainPerTu(timeline);
  int64_t longest = chains.empty() ? 0 : *std::max_element(chains.begin(), chains.end());
  int64_t bound = std::max<int64_t>(longest, total / std::max(1u, jobs));
  char line[512];
  std::string text;
  std::snprintf(line, sizeof line,
                "FastCuda build report\n\nwall %s; %zu steps took %s in all: parallelism %.1f "
                "(%u jobs)\nlower bound max(longest chain %s, step time / jobs %s) = %s; "
                "wall / bound = %.2f\n\ntime per step kind:\n",
                Seconds(timeline.wall_ms).c_str(), timeline.steps.size(), Seconds(total).c_str(),
                timeline.wall_ms ? double(total) / timeline.wall_ms : 0.0, jobs, Seconds(longest).c_str(),
                Seconds(total / std::max(1u, jobs)).c_str(), Seconds(bound).c_str(),
                bound ? double(timeline.wall_ms) / bound : 0.0);
  text += line;
  text += PlannedWith(timeline.planned);
  std::vector<std::pair<std::string, std::pair<int64_t, int>>> kinds(per_kind.begin(), per_kind.end());
  std::sort(kinds.begin(), kinds.end(), [](auto& a, auto& b) { return a.second.first > b.second.first; });
  int width = 10;  // the longest kind's name, where longer (FATBIN_STITCH)
  for (const auto& [kind, usage] : kinds) width = std::max(width, static_cast<int>(kind.size()));
  for (const auto& [kind, usage] : kinds) {
    std::snprintf(line, sizeof line, "  %-*s %10s %5.1f%%  %5d steps\n", width, kind.c_str(),
                  Seconds(usage.first).c_str(), total ? 100.0 * usage.first / total : 0.0, usage.second);
    text += line;
  }
  if (timeline.cache_lookups > 0) {
    std::snprintf(
        line, sizeof line,
        "\nwhole-call cache: %zu of %zu TUs hit (their steps did not run: the objects are the cache's)\n",
        timeline.cache_hits, timeline.cache_lookups);
    text += line;
  }
  text += StepCacheOutcomes(timeline);
  std::vector<size_t> order(chains.size());
  for (size_t t = 0; t < order.size(); ++t) order[t] = t;
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) { return chains[a] > chains[b]; });
  text += "\nlongest chains (the TUs to split first):\n";
  for (size_t rank = 0; rank < order.size() && rank < 10 && chains[order[rank]] > 0; ++rank) {
    std::snprintf(line, sizeof line, "  %s  %s\n", Seconds(chains[order[rank]]).c_str(),
                  timeline.tus[order[rank]].source.c_str());
    text += line;
  }
  std::vector<size_t> chain = CriticalChain(timeline);
  text += "\ncritical chain of this build:\n";
  for (size_t i : chain) {
    const TimedStep& step = timeline.steps[i];
    std::snprintf(line, sizeof line, "  %8s  %s\n", Seconds(step.end_ms - step.start_ms).c_str(),
                  timeline.Name(step).c_str());
    text += line;
  }
  return text;
}

std::string StepTableCsv(const Timeline& timeline) {
  std::string csv = "tu,source,kind,arch,output,start_ms,end_ms,duration_ms,output_bytes,peak_rss_kib\n";
  auto quoted = [](const std::string& field) {
    std::string out = "\"";
    for (char c : field) {
      if (c == '"') out += '"';
      out += c;
    }
    out += '"';
    return out;
  };
  for (const TimedStep& step : timeline.steps) {
    const RecordedStep& recorded = timeline.Step(step);
    csv += std::to_string(step.tu) + "," + quoted(timeline.tus[step.tu].source) + "," + recorded.kind + "," +
           recorded.arch + "," + quoted(recorded.output) + "," + std::to_string(step.start_ms) + "," +
           std::to_string(step.end_ms) + "," + std::to_string(step.end_ms - step.start_ms) + "," +
           (step.output_bytes >= 0 ? std::to_string(step.output_bytes) : "") + "," +
           (step.peak_kib > 0 ? std::to_string(step.peak_kib) : "") + "\n";
  }
  return csv;
}

std::string StepGraphDot(const std::vector<RecordedTu>& tus) {
  auto node = [](size_t tu, size_t step) {
    std::string id = "s";
    id += std::to_string(tu);
    id += '_';
    id += std::to_string(step);
    return id;
  };
  std::string dot = "digraph fastcuda {\n  rankdir=LR;\n  node [shape=box, style=filled];\n";
  for (size_t t = 0; t < tus.size(); ++t) {
    dot += "  subgraph cluster_" + std::to_string(t) + " {\n    label=\"" + Escape(tus[t].source) + "\";\n";
    for (size_t s = 0; s < tus[t].steps.size(); ++s) {
      const RecordedStep& step = tus[t].steps[s];
      std::string label = step.kind;
      if (!step.arch.empty()) label += " " + step.arch;
      dot += "    " + node(t, s) + " [label=\"" + Escape(label) + "\", fillcolor=\"" + Colour(step.kind) +
             "\"];\n";
      for (size_t before : step.after) dot += "    " + node(t, before) + " -> " + node(t, s) + ";\n";
    }
    dot += "  }\n";
  }
  return dot + "}\n";
}

}  // namespace fastcuda

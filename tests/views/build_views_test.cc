#include <doctest/doctest.h>

#include <re2/re2.h>
#include <nlohmann/json.hpp>

#include "src/views/build_views.h"
#include "tests/test_support.h"

using namespace fastcuda;
using fastcuda::testing::CountMatches;

namespace {

// One TU: preprocess -> cicc -> ptxas, and a host preprocess beside them.
std::vector<RecordedTu> Tus() {
  return {{"src/k.cu",
           {{"CPP_DEVICE", "compute_90", "/w/k.cpp1.ii", {}},
            {"CICC", "compute_90", "/w/k.ptx", {0}},
            {"PTXAS", "sm_90", "/w/k.cubin", {1}},
            {"CPP_HOST", "", "/w/k.cpp4.ii", {}}}}};
}

// An older build, then the last one (Ninja's clock restarts at 0).
const char kLog[] =
    "# ninja log v5\n"
    "0\t900\t1\t/w/k.cpp1.ii\tab\n"
    "0\t100\t1\t/w/k.cpp1.ii\tab\n"
    "0\t150\t1\t/w/k.cpp4.ii\tab\n"
    "100\t600\t1\t/w/k.ptx\tab\n"
    "600\t700\t1\t/w/k.cubin\tab\n";

Timeline Sample() {
  return BuildTimeline(Tus(), kLog, "/w/k.ptx\t2048\n",
                       [](const std::string& path) { return path == "/w/k.ptx" ? 42 : -1; });
}

}  // namespace

TEST_CASE("the timeline holds the last build only, in start order, with memory and sizes") {
  Timeline timeline = Sample();
  REQUIRE(timeline.steps.size() == 4);
  CHECK(timeline.wall_ms == 700);
  CHECK(timeline.Name(timeline.steps[0]) == "CPP_DEVICE compute_90 k.cu");
  CHECK(timeline.steps[0].end_ms == 100);  // not the older build's 900
  const TimedStep& cicc = timeline.steps[2];
  CHECK(timeline.Step(cicc).kind == "CICC");
  CHECK(cicc.peak_kib == 2048);
  CHECK(cicc.output_bytes == 42);
}

TEST_CASE("a quick build after a slower one, its end times not dropping, is told apart by its Ninja run") {
  // The slower build ran all four steps; the next one the host preprocessing
  // alone, which ended later in its build than the cubin did in the other
  const std::string log = std::string(kLog) + "0\t800\t1\t/w/k.cpp4.ii\tab\n";
  const std::string runs =
      "/w/k.cpp1.ii\t1\t1\tninja=10.5\n/w/k.cpp4.ii\t1\t1\tninja=10.5\n/w/k.ptx\t1\t1\tninja=10.5\n"
      "/w/k.cubin\t1\t1\tninja=10.5\n/w/k.cpp4.ii\t1\t1\tninja=12.7\n";
  auto no_size = [](const std::string&) { return -1; };
  Timeline timeline = BuildTimeline(Tus(), log, runs, no_size);
  REQUIRE(timeline.steps.size() == 1);
  CHECK(timeline.Name(timeline.steps[0]) == "CPP_HOST k.cu");
  CHECK(timeline.wall_ms == 800);
  // Lines that name no run (an earlier version's, a step run by hand): the end times alone
  CHECK(BuildTimeline(Tus(), log, "", no_size).steps.size() == 5);
}

TEST_CASE("a later build that only stamped the ladder's rungs and regenerated is no build to show") {
  std::string log = std::string(kLog) +
                    "0\t3\t1\t/g/priority/rung2\tcd\n"
                    "1\t5\t1\t/g/priority/rung1\tcd\n"
                    "0\t40\t1\tbuild.ninja\tef\n";
  Timeline timeline = BuildTimeline(Tus(), log, "", [](const std::string&) { return -1; });
  REQUIRE(timeline.steps.size() == 4);
  CHECK(timeline.wall_ms == 700);
}

TEST_CASE(
    "a first build's two Ninja runs are one build: the first phase, then the rest from when it started") {
  const std::string first_phase = "# ninja log v5\n0\t100\t1\t/w/k.cpp1.ii\tab\n";
  const std::string estimates = "0\t2000\t0\t/w/k.ptx\t0\n0\t1000\t0\t/w/k.cubin\t0\n";
  const std::string build =
      "0\t150\t1\t/w/k.cpp4.ii\tab\n0\t500\t1\t/w/k.ptx\tab\n500\t600\t1\t/w/k.cubin\tab\n";
  const FirstPhase phase{first_phase.size(), first_phase.size() + estimates.size(), 120};
  auto no_size = [](const std::string&) { return int64_t{-1}; };
  Timeline timeline = BuildTimeline(Tus(), first_phase + estimates + build, "", no_size, phase);
  REQUIRE(timeline.steps.size() == 4);
  CHECK(timeline.Name(timeline.steps[0]) == "CPP_DEVICE compute_90 k.cu");
  CHECK(timeline.steps[1].start_ms == 120);  // the host preprocessing, moved
  CHECK(timeline.wall_ms == 720);
  // A later build is the last build alone.
  timeline = BuildTimeline(Tus(), first_phase + estimates + build + "0\t80\t1\t/w/k.cpp1.ii\tab\n", "",
                           no_size, phase);
  REQUIRE(timeline.steps.size() == 1);
  CHECK(timeline.wall_ms == 80);
}

TEST_CASE("records that fastcuda ninja copied for the generator's command are no later build") {
  // The object's record handed over (another hash, same times) after the link ended.
  std::string log = std::string(kLog) + "700\t900\t1\tlink.so\tab\n" + "600\t700\t1\t/w/k.cubin\tcd\n";
  Timeline timeline = BuildTimeline(Tus(), log, "", [](const std::string&) { return -1; });
  CHECK(timeline.steps.size() == 4);
}

TEST_CASE("critical chain, longest chain per TU, job slots") {
  Timeline timeline = Sample();
  std::vector<std::string> chain;
  for (size_t i : CriticalChain(timeline)) chain.push_back(timeline.Step(timeline.steps[i]).kind);
  CHECK(chain == std::vector<std::string>{"CPP_DEVICE", "CICC", "PTXAS"});
  CHECK(LongestChainPerTu(timeline) == std::vector<int64_t>{700});
  CHECK(JobSlots(timeline) == std::vector<size_t>{0, 1, 0, 0});
}

TEST_CASE("trace JSON: valid, one complete event per step, a named process per TU") {
  nlohmann::json trace = nlohmann::json::parse(TraceJson(Sample()));
  int complete = 0;
  for (const auto& event : trace.at("traceEvents")) {
    if (event.at("ph") == "M") CHECK(event.at("args").at("name") == "src/k.cu");
    if (event.at("ph") != "X") continue;
    ++complete;
    CHECK(event.at("dur").get<int64_t>() >= 0);
    if (event.at("name") == "CICC compute_90 k.cu") {
      CHECK(event.at("ts") == 100000);
      CHECK(event.at("dur") == 500000);
      CHECK(event.at("args").at("peak_rss_kib") == 2048);
    }
  }
  CHECK(complete == 4);
}

TEST_CASE("SVG: a rectangle per step, the critical chain outlined, balanced tags") {
  std::string svg = TimelineSvg(Sample());
  CHECK(svg.rfind("<svg xmlns=\"http://www.w3.org/2000/svg\"", 0) == 0);
  CHECK(svg.substr(svg.size() - 7) == "</svg>\n");
  CHECK(CountMatches(svg, R"(<title>)") == 4);
  CHECK(CountMatches(svg, R"(stroke="black")") == 3);
  CHECK(CountMatches(svg, R"(<rect )") == CountMatches(svg, R"(</rect>|/>)"));
}

TEST_CASE("report: lower bound, time per kind, chains") {
  std::string report = BuildReport(Sample(), 2);
  CHECK(report.find("wall 0.70 s; 4 steps took 0.85 s in all") != std::string::npos);
  CHECK(report.find("lower bound max(longest chain 0.70 s, step time / jobs 0.42 s) = 0.70 s") !=
        std::string::npos);
  CHECK(report.find("CICC           0.50 s  58.8%") != std::string::npos);
  CHECK(report.find("0.70 s  src/k.cu") != std::string::npos);
  // A kind's name longer than the column widens it for every kind.
  std::vector<RecordedTu> stitched = Tus();
  stitched[0].steps[2].kind = "FATBIN_STITCH";
  std::string wide = BuildReport(BuildTimeline(stitched, kLog, "", [](const std::string&) { return -1; }), 2);
  CHECK(wide.find("  FATBIN_STITCH     0.10 s") != std::string::npos);
  CHECK(wide.find("  CICC              0.50 s") != std::string::npos);
  CHECK(report.find("whole-call cache") == std::string::npos);  // none asked
  Timeline cached = Sample();
  cached.cache_lookups = 3;
  cached.cache_hits = 2;
  CHECK(BuildReport(cached, 2).find("whole-call cache: 2 of 3 TUs hit") != std::string::npos);
  CHECK(report.find("step cache") == std::string::npos);    // no launcher said
  CHECK(report.find("planned with") == std::string::npos);  // an older directory: none recorded
}

TEST_CASE("report: the budget and jobs the graph was planned with, and where each came from") {
  Timeline timeline = Sample();
  timeline.planned = PlannedLimits{12 << 20, "3/4 of /sys/fs/cgroup/memory.max less the cgroup's usage", 4,
                                   "the quota in /sys/fs/cgroup/cpu.max"};
  CHECK(BuildReport(timeline, 2)
            .find("planned with: memory budget 12.0 GiB: 3/4 of /sys/fs/cgroup/memory.max less the cgroup's "
                  "usage\n"
                  "              jobs 4: the quota in /sys/fs/cgroup/cpu.max\n") != std::string::npos);
}

TEST_CASE("report: the step cache's hits and misses per kind, as the launchers said") {
  Timeline timeline = BuildTimeline(Tus(), kLog, "/w/k.ptx\t2048\t3\thit\n/w/k.cubin\t10\t1\tmiss\n",
                                    [](const std::string&) { return -1; });
  std::string report = BuildReport(timeline, 2);
  CHECK(report.find("step cache, as the launchers said:\n"
                    "  CICC           1 hit     0 miss\n"
                    "  PTXAS          0 hit     1 miss\n") != std::string::npos);
  // Misses FastCuda's remote client ran on an idle local core
  timeline = BuildTimeline(Tus(), kLog, "/w/k.ptx\t2048\t3\there\n/w/k.cubin\t10\t1\tmiss\n",
                           [](const std::string&) { return -1; });
  CHECK(BuildReport(timeline, 2)
            .find("  CICC           0 hit     1 miss, 1 of them run on idle local cores\n"
                  "  PTXAS          0 hit     1 miss\n") != std::string::npos);
}

TEST_CASE("CSV: a header and one row per step, ten columns each") {
  std::string csv = StepTableCsv(Sample());
  CHECK(csv.rfind("tu,source,kind,arch,output,start_ms,end_ms,duration_ms,output_bytes,peak_rss_kib\n", 0) ==
        0);
  CHECK(CountMatches(csv, "\n") == 5);
  CHECK(csv.find("0,\"src/k.cu\",CICC,compute_90,\"/w/k.ptx\",100,600,500,42,2048\n") != std::string::npos);
}

TEST_CASE("DOT: a cluster per TU, an edge per dependency") {
  std::string dot = StepGraphDot(Tus());
  CHECK(CountMatches(dot, "subgraph cluster_") == 1);
  CHECK(CountMatches(dot, " -> ") == 2);
  CHECK(dot.find("s0_1 -> s0_2;") != std::string::npos);
  CHECK(dot.substr(dot.size() - 2) == "}\n");
}

TEST_CASE("the longest chain runs through the depfile handed to Ninja, as steps.json lists it") {
  StepGraph graph = fastcuda::testing::RecordedGraph("depfile");
  REQUIRE(HandDepfileToNinja(graph));
  Timeline timeline;
  timeline.tus =
      ParseStepsFile(StepsFileText({graph}, [](const StepGraph&, const std::string& path) { return path; }));
  REQUIRE(timeline.tus.size() == 1);
  for (size_t s = 0; s < graph.steps.size(); ++s) {
    // The merge is slow: preprocessing, the merge and the object are the longest chain.
    const int64_t ms = graph.steps[s].kind == StepKind::kFilterDependencies ? 1000 : 100;
    timeline.steps.push_back({0, s, 0, ms});
  }
  CHECK(LongestChainPerTu(timeline) == std::vector<int64_t>{1200});
}

#include <doctest/doctest.h>

#include "src/base/ninja_log.h"
#include "src/plan/graph_dir.h"
#include "src/plan/source_reads.h"
#include "tests/test_support.h"

using namespace fastcuda;
using fastcuda::testing::FakeFileSystem;

namespace {

/// A graph directory `/g` whose Ninja runs in `/b`, whose CPP step of
/// `t/a.ii` read `/s/a.cu` and `/s/a.h`, started just after they were
/// written, with Ninja's log holding the step's record.
struct SourceGraph {
  FakeFileSystem fs{{"/s/a.cu", "kernel"}, {"/s/a.h", "#define A 1"}};
  SourceGraph() {
    fs.Write("/b/.ninja_deps", FormatNinjaDepsLog({{"t/a.ii", {"/s/a.cu", "/s/a.h"}}}));
    fs.Write("/b/.ninja_log", "# ninja log v5\n" + FormatNinjaLogRecord({10, 20, 5, "t/a.ii", 0x1234}));
    fs.Write(NinjaLogSourcePath("/g"), "/b/.ninja_log");
    fs.Write(SourceReadsPath("/g"), SourceReadLine(fs.ClockNow() + 1, "t/a.ii"));
  }
  std::vector<std::string> Reread() { return RereadChangedSources("/g", "/b", fs); }
};

}  // namespace

TEST_CASE("source reads: nothing changed since the step started, nothing reruns and the log stays") {
  SourceGraph graph;
  std::string log = *graph.fs.Read("/b/.ninja_log");
  CHECK(graph.Reread().empty());
  CHECK(graph.fs.Read("/b/.ninja_log") == log);
}

TEST_CASE("source reads: a header set back to an older mtime reruns the step, its output kept") {
  SourceGraph graph;
  graph.fs.Write("/b/t/a.ii", "preprocessed");
  graph.fs.SetMTime("/s/a.h", std::filesystem::file_time_type{});  // `cp -p` of an earlier text
  CHECK(graph.Reread() == std::vector<std::string>{"t/a.ii"});
  std::vector<NinjaLogRecord> records = ParseNinjaLogRecords(*graph.fs.Read("/b/.ninja_log"));
  REQUIRE(records.size() == 2);
  CHECK(records[1].output == "t/a.ii");
  CHECK(records[1].command_hash != 0x1234);
  CHECK(records[1].end_ms == 20);  // the step's time stays what it was
  CHECK(graph.fs.IsFile("/b/t/a.ii"));
}

TEST_CASE("source reads: a file gone reruns the step; one the step did not read does not") {
  SourceGraph gone;
  gone.fs.Remove("/s/a.h");
  CHECK(gone.Reread() == std::vector<std::string>{"t/a.ii"});
  SourceGraph other;
  other.fs.Write("/s/b.h", "#define B 1");
  CHECK(other.Reread().empty());
}

TEST_CASE("source reads: a step with no start recorded, or not in the deps log, is left to Ninja") {
  SourceGraph graph;
  graph.fs.Write(SourceReadsPath("/g"), SourceReadLine(1, "t/other.ii"));
  graph.fs.Touch("/s/a.h");
  CHECK(graph.Reread().empty());
}

TEST_CASE("source reads: in a log of a format FastCuda does not write, the output goes instead") {
  SourceGraph graph;
  graph.fs.Write("/b/.ninja_log", "# ninja log v9\n");
  graph.fs.Write("/b/t/a.ii", "preprocessed");
  graph.fs.Touch("/s/a.cu");
  CHECK(graph.Reread() == std::vector<std::string>{"t/a.ii"});
  CHECK_FALSE(graph.fs.IsFile("/b/t/a.ii"));
}

TEST_CASE("source reads: the log of starts keeps the latest of each output once it has grown") {
  SourceGraph graph;
  std::string lines;
  for (int run = 1; run <= 100; ++run) lines += SourceReadLine(run, "t/a.ii");
  graph.fs.Write(SourceReadsPath("/g"), lines);
  graph.Reread();
  CHECK(graph.fs.Read(SourceReadsPath("/g")) == SourceReadLine(100, "t/a.ii"));
  CHECK(ParseSourceReads(lines) == std::map<std::string, int64_t>{{"t/a.ii", 100}});
}

TEST_CASE(
    "source reads: the no-op check answers from an index of the files read, made again as the logs grow") {
  SourceGraph graph;
  CHECK_FALSE(SourceChangedSinceRead("/g", "/b", graph.fs));
  const std::string index = *graph.fs.Read(ReadFilesPath("/g"));
  CHECK(index.find("\t/s/a.h\n") != std::string::npos);
  // Answered from the index alone: a deps log of the same size and mtime is not read again.
  graph.fs.Write("/b/t/b.ii", "");
  graph.fs.SetMTime("/s/a.h", std::filesystem::file_time_type{});  // `cp -p`: its ctime moves
  CHECK(SourceChangedSinceRead("/g", "/b", graph.fs));
  CHECK(graph.fs.Read(ReadFilesPath("/g")) == index);
  // A step that ran since, reading a new file: the index is made again.
  SourceGraph later;
  later.fs.Write("/s/b.h", "#define B 1");
  CHECK_FALSE(SourceChangedSinceRead("/g", "/b", later.fs));
  later.fs.Write("/b/.ninja_deps", FormatNinjaDepsLog({{"t/a.ii", {"/s/a.cu", "/s/b.h"}}}));
  later.fs.Append(SourceReadsPath("/g"), SourceReadLine(later.fs.ClockNow() + 1, "t/a.ii"));
  CHECK_FALSE(SourceChangedSinceRead("/g", "/b", later.fs));
  CHECK(later.fs.Read(ReadFilesPath("/g"))->find("\t/s/b.h\n") != std::string::npos);
  later.fs.Remove("/s/b.h");
  CHECK(SourceChangedSinceRead("/g", "/b", later.fs));
}

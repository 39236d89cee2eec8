#include "src/base/build_progress.h"

#include <doctest/doctest.h>

#include <chrono>
#include <string>
#include <vector>

using namespace fastcuda;
using std::chrono::milliseconds;

namespace {

/// Records what is written; a terminal of `columns`, or plain lines (0).
class RecordedOutput : public ProgressOutput {
 public:
  explicit RecordedOutput(size_t columns) : columns_(columns) {}
  void Write(std::string_view text) override { written.emplace_back(text); }
  size_t Columns() const override { return columns_; }
  std::vector<std::string> written;

 private:
  size_t columns_;
};

/// A followed Ninja's status line, with its newline.
std::string Status(int finished, int total, const std::string& description) {
  return "fastcuda-status " + std::to_string(finished) + " " + std::to_string(total) + " 2: " + description +
         "\n";
}

/// A BuildProgress on `output` whose clock the test moves.
struct Followed {
  explicit Followed(size_t columns) : output(columns), progress(output, [this] { return now; }) {}
  /// Moves the clock to `ms` and ticks: how many writes there are then.
  size_t TickAt(long ms) {
    now = milliseconds(ms);
    progress.Tick();
    return output.written.size();
  }
  milliseconds now{0};
  RecordedOutput output;
  BuildProgress progress;
};

}  // namespace

TEST_CASE("the terminal line: counts, running steps, elapsed time, the last step; minutes past 60 s") {
  NinjaStatusLine status{37, 412, 8, "CICC sm_80 a.cu"};
  CHECK(FormatProgressLine(status, milliseconds(12'900)) ==
        "[37/412 CUDA sub-steps, 8 running, 12s] CICC sm_80 a.cu");
  CHECK(FormatProgressLine(status, milliseconds(185'000)) ==
        "[37/412 CUDA sub-steps, 8 running, 3m05s] CICC sm_80 a.cu");
  CHECK(FormatProgressLine(std::nullopt, milliseconds(2'000)) == "[CUDA sub-steps starting, 2s]");
}

TEST_CASE("a plain line: counts, the share done, elapsed time, the last step") {
  CHECK(FormatPlainProgressLine({37, 412, 8, "CICC sm_80 a.cu"}, milliseconds(12'000)) ==
        "fastcuda: 37/412 CUDA sub-steps (8%), 8 running, 12s; last: CICC sm_80 a.cu\n");
}

TEST_CASE("a line too wide is cut in its middle, never inside a UTF-8 character") {
  CHECK(ElideMiddle("abcdefghij", 10) == "abcdefghij");
  CHECK(ElideMiddle("abcdefghij", 7) == "ab...ij");
  CHECK(ElideMiddle("abcdefghij", 2) == "..");
  // "é" is two bytes: a cut that would split it moves out of it.
  const std::string text =
      "ab\xc3\xa9"
      "cdefgh\xc3\xa9";
  CHECK(ElideMiddle(text, 8) == "ab...h\xc3\xa9");
  CHECK(ElideMiddle(text, 9) == "ab...h\xc3\xa9");
  CHECK(ElideMiddle(text, 5) == "a...");
}

TEST_CASE(
    "at a terminal: nothing before the start delay, then one line redrawn in place, erased at the end") {
  Followed build(50);
  build.progress.Read(Status(1, 9, "CPP a.cu"));
  CHECK(build.TickAt(0) == 0);  // before the delay: a short build draws nothing
  REQUIRE(build.TickAt(1'000) == 1);
  CHECK(build.output.written[0] == "\r[1/9 CUDA sub-steps, 2 running, 1s] CPP a.cu\x1b[K");
  // A status moved within the redraw pace waits for the next tick after it.
  build.now = milliseconds(1'050);
  build.progress.Read(Status(2, 9, "CICC sm_80 a-very-long-name-that-does-not-fit.cu"));
  CHECK(build.output.written.size() == 1);
  REQUIRE(build.TickAt(1'100) == 2);
  // 49 columns: the last one stays free, as a terminal may wrap there.
  CHECK(build.output.written[1] == "\r[2/9 CUDA sub-steps, 2 ...me-that-does-not-fit.cu\x1b[K");
  CHECK(build.output.written[1].size() == 1 + 49 + 3);
  // Without a new status, the elapsed time moves once a second.
  CHECK(build.TickAt(1'900) == 2);
  CHECK(build.TickAt(2'100) == 3);
  build.progress.Finish();
  CHECK(build.output.written.back() == "\r\x1b[K");
  build.progress.Finish();
  CHECK(build.output.written.size() == 4);
}

TEST_CASE("at a terminal, a graph that runs long before a step ends says it is starting") {
  Followed build(80);
  build.TickAt(1'500);
  CHECK(build.output.written == std::vector<std::string>{"\r[CUDA sub-steps starting, 1s]\x1b[K"});
}

TEST_CASE("a build shorter than the start delay leaves nothing to erase") {
  Followed build(80);
  build.progress.Read(Status(9, 9, "HOST_CC a.cu"));
  build.now = milliseconds(500);
  build.progress.Finish();
  CHECK(build.output.written.empty());
}

TEST_CASE("plain lines: each tenth of the steps but not within a second, every 10 s, a last one") {
  Followed build(0);
  build.now = milliseconds(1'200);
  build.progress.Read(Status(5, 100, "CPP a.cu"));
  CHECK(build.output.written.empty());  // still in the first tenth
  build.progress.Read(Status(10, 100, "CPP b.cu"));
  REQUIRE(build.output.written.size() == 1);
  CHECK(build.output.written[0] == "fastcuda: 10/100 CUDA sub-steps (10%), 2 running, 1s; last: CPP b.cu\n");
  build.now = milliseconds(1'700);
  build.progress.Read(Status(25, 100, "CICC a.cu"));
  CHECK(build.output.written.size() == 1);  // another tenth, but within a second of the last line
  CHECK(build.TickAt(2'300) == 2);
  // A long step: nothing moves, a line every 10 s says the build lives.
  CHECK(build.TickAt(12'200) == 2);
  REQUIRE(build.TickAt(12'300) == 3);
  CHECK(build.output.written[2] ==
        "fastcuda: 25/100 CUDA sub-steps (25%), 2 running, 12s; last: CICC a.cu\n");
  build.progress.Read(Status(100, 100, "HOST_CC b.cu"));
  build.progress.Finish();
  REQUIRE(build.output.written.size() == 4);
  CHECK(build.output.written[3] ==
        "fastcuda: 100/100 CUDA sub-steps (100%), 2 running, 12s; last: HOST_CC b.cu\n");
}

TEST_CASE("the Ninja's other output is kept whole, lines split across reads included, status lines out") {
  Followed build(0);
  build.progress.Read("FAILED: a.o\nnvcc a.cu\nfastcuda-status 1 2 1: CI");
  build.progress.Read("CC a.cu\nninja: build stopped: subcommand failed.\npartial");
  CHECK(build.progress.TakeOtherOutput() ==
        "FAILED: a.o\nnvcc a.cu\nninja: build stopped: subcommand failed.\npartial");
  CHECK(build.progress.TakeOtherOutput().empty());
  REQUIRE(build.TickAt(20'000) == 1);
  CHECK(build.output.written[0].find("1/2 CUDA sub-steps") != std::string::npos);
  CHECK(build.output.written[0].find("last: CICC a.cu") != std::string::npos);
}

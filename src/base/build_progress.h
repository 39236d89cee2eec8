// Where a graph's build stands, shown while it runs: the status of the
// Ninja that runs it, followed line by line (ninja_status.h), redrawn on one
// terminal line or printed as an occasional plain line.
#pragma once

#include <chrono>
#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "src/base/ninja_status.h"

namespace fastcuda {

/// Where the progress goes.
class ProgressOutput {
 public:
  virtual ~ProgressOutput() = default;
  /// Writes `text` whole or not at all: the build never waits for it.
  virtual void Write(std::string_view text) = 0;
  /// The width of a terminal on which one line is redrawn in place; 0 for
  /// an output that gets plain lines (a pipe, a log, a terminal that its
  /// Ninja does not redraw either).
  virtual size_t Columns() const = 0;
};

/// The time now, from any fixed point (steady_clock's in a build, a fake in
/// tests).
using ProgressClock = std::function<std::chrono::milliseconds()>;

/// When progress shows.
struct ProgressPace {
  /// Nothing shows before this: a short build draws nothing to erase.
  std::chrono::milliseconds start_delay{1000};
  /// At most one redraw of the terminal line this often.
  std::chrono::milliseconds redraw{100};
  /// A plain line at least this often, while the build moves or not ...
  std::chrono::milliseconds plain_every{10000};
  /// ... and whenever another tenth of the steps has ended, but no sooner
  /// than this after the last one.
  std::chrono::milliseconds plain_at_least{1000};
};

/// The terminal line: "[37/412 CUDA sub-steps, 8 running, 12s] CICC sm_80
/// a.cu"; before any step has ended "[CUDA sub-steps starting, 2s]".
std::string FormatProgressLine(const std::optional<NinjaStatusLine>& status,
                               std::chrono::milliseconds elapsed);

/// A plain line, with its newline: "fastcuda: 37/412 CUDA sub-steps (8%),
/// 8 running, 12s; last: CICC sm_80 a.cu".
std::string FormatPlainProgressLine(const NinjaStatusLine& status, std::chrono::milliseconds elapsed);

/// `text` cut to `width` bytes by "..." in its middle, as Ninja elides its
/// status line, never inside a UTF-8 character.
std::string ElideMiddle(std::string_view text, size_t width);

/// Follows the stdout of one followed Ninja run after another and shows
/// where the build stands on `output`. One object per build: its clock
/// starts when it is made.
class BuildProgress {
 public:
  BuildProgress(ProgressOutput& output, ProgressClock clock, ProgressPace pace = {});
  ~BuildProgress() { Finish(); }
  BuildProgress(const BuildProgress&) = delete;
  BuildProgress& operator=(const BuildProgress&) = delete;

  /// What the Ninja wrote to its stdout, as it came: its status lines move
  /// the progress, its other lines are kept for TakeOtherOutput.
  void Read(std::string_view text);
  /// Time passed: a throttled line is drawn, the elapsed time moves.
  void Tick();
  /// What the Ninja wrote besides its status lines since the last call;
  /// called when it has ended.
  std::string TakeOtherOutput();
  /// The display ends: the terminal line is erased, so that the next line
  /// its owner writes starts clean; where plain lines were printed, a last
  /// one says where the build ended. Later calls do nothing.
  void Finish();

 private:
  /// Shows the progress now if its pace allows.
  void Show();
  /// Writes the terminal line of the progress now.
  void Draw(std::chrono::milliseconds now);
  /// Prints a plain line of the progress now.
  void PrintPlain(std::chrono::milliseconds now);

  ProgressOutput& output_;
  ProgressClock clock_;
  ProgressPace pace_;
  std::chrono::milliseconds start_;
  std::optional<NinjaStatusLine> status_;
  std::string partial_line_;  ///< the Ninja's output after its last newline
  std::string other_output_;
  bool finished_ = false;
  bool drawn_ = false;    ///< the terminal line shows the progress
  bool undrawn_ = false;  ///< the status moved since it was last shown
  std::optional<std::chrono::milliseconds> last_shown_;
  int last_plain_finished_ = -1;
  int last_plain_tenth_ = 0;
};

}  // namespace fastcuda

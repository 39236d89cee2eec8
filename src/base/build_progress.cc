#include "src/base/build_progress.h"

#include <utility>

namespace fastcuda {
namespace {

using std::chrono::milliseconds;

/// "12s", or "3m05s" from a minute on.
std::string FormatElapsed(milliseconds elapsed) {
  const long long seconds = elapsed.count() / 1000;
  if (seconds < 60) return std::to_string(seconds) + "s";
  const std::string rest = std::to_string(seconds % 60);
  return std::to_string(seconds / 60) + "m" + (rest.size() < 2 ? "0" : "") + rest + "s";
}

/// A UTF-8 continuation byte: no character starts there.
bool InsideCharacter(char byte) { return (static_cast<unsigned char>(byte) & 0xC0) == 0x80; }

}  // namespace

std::string FormatProgressLine(const std::optional<NinjaStatusLine>& status, milliseconds elapsed) {
  if (!status) return "[CUDA sub-steps starting, " + FormatElapsed(elapsed) + "]";
  // Appended to a string, not summed from a literal: GCC 12 warns of an
  // overlap there once inlined (-Wrestrict, a false alarm).
  std::string line(1, '[');
  line += std::to_string(status->finished) + "/" + std::to_string(status->total) + " CUDA sub-steps, ";
  line += std::to_string(status->running) + " running, " + FormatElapsed(elapsed) + "] ";
  return line + status->description;
}

std::string FormatPlainProgressLine(const NinjaStatusLine& status, milliseconds elapsed) {
  const int percent = status.total > 0 ? status.finished * 100 / status.total : 0;
  return "fastcuda: " + std::to_string(status.finished) + "/" + std::to_string(status.total) +
         " CUDA sub-steps (" + std::to_string(percent) + "%), " + std::to_string(status.running) +
         " running, " + FormatElapsed(elapsed) + "; last: " + status.description + "\n";
}

std::string ElideMiddle(std::string_view text, size_t width) {
  if (text.size() <= width) return std::string(text);
  const std::string_view dots = "...";
  if (width <= dots.size()) return std::string(dots.substr(0, width));
  size_t head = (width - dots.size()) / 2, tail_start = text.size() - (width - dots.size() - head);
  while (head > 0 && InsideCharacter(text[head])) --head;
  while (tail_start < text.size() && InsideCharacter(text[tail_start])) ++tail_start;
  return std::string(text.substr(0, head)) + std::string(dots) + std::string(text.substr(tail_start));
}

BuildProgress::BuildProgress(ProgressOutput& output, ProgressClock clock, ProgressPace pace)
    : output_(output), clock_(std::move(clock)), pace_(pace), start_(clock_()) {}

void BuildProgress::Read(std::string_view text) {
  partial_line_.append(text);
  bool moved = false;
  size_t start = 0;
  for (size_t end; (end = partial_line_.find('\n', start)) != std::string::npos; start = end + 1) {
    std::string_view line = std::string_view(partial_line_).substr(start, end - start);
    if (std::optional<NinjaStatusLine> status = ParseNinjaStatusLine(line)) {
      status_ = std::move(status);
      moved = true;
    } else {
      other_output_.append(line).push_back('\n');
    }
  }
  partial_line_.erase(0, start);
  if (!moved) return;
  undrawn_ = true;
  Show();
}

void BuildProgress::Tick() { Show(); }

std::string BuildProgress::TakeOtherOutput() {
  other_output_ += std::exchange(partial_line_, {});
  return std::exchange(other_output_, {});
}

void BuildProgress::Finish() {
  if (finished_) return;
  finished_ = true;
  if (drawn_) output_.Write("\r\x1b[K");
  else if (last_plain_finished_ >= 0 && status_ && status_->finished != last_plain_finished_)
    PrintPlain(clock_());
}

void BuildProgress::Show() {
  const milliseconds now = clock_();
  if (finished_ || now - start_ < pace_.start_delay) return;
  const milliseconds since = now - last_shown_.value_or(start_);
  if (output_.Columns() > 0) {
    // A moved status at the redraw pace; else the elapsed time each second.
    if (!last_shown_ || since >= (undrawn_ ? pace_.redraw : std::chrono::seconds(1))) Draw(now);
    return;
  }
  if (!status_) return;
  const int tenth = status_->total > 0 ? status_->finished * 10 / status_->total : 0;
  if (since >= pace_.plain_every || (tenth != last_plain_tenth_ && since >= pace_.plain_at_least)) {
    PrintPlain(now);
  }
}

void BuildProgress::Draw(milliseconds now) {
  const size_t columns = output_.Columns();
  // The last column left free: a terminal that wraps there would move the
  // next redraw a line down.
  std::string line(1, '\r');  // appended, not summed from a literal: as in FormatProgressLine
  line += ElideMiddle(FormatProgressLine(status_, now - start_), columns - 1);
  output_.Write(line + "\x1b[K");
  drawn_ = true;
  undrawn_ = false;
  last_shown_ = now;
}

void BuildProgress::PrintPlain(milliseconds now) {
  output_.Write(FormatPlainProgressLine(*status_, now - start_));
  last_plain_finished_ = status_->finished;
  last_plain_tenth_ = status_->total > 0 ? status_->finished * 10 / status_->total : 0;
  undrawn_ = false;
  last_shown_ = now;
}

}  // namespace fastcuda

#include "src/base/memory_ledger.h"

#include <algorithm>
#include <optional>
#include <sstream>

namespace fastcuda {

MemoryLedger ParseMemoryLedger(std::string_view text) {
  MemoryLedger ledger;
  std::istringstream lines{std::string(text)};
  std::string line;
  while (std::getline(lines, line)) {
    std::istringstream words(line);
    std::string tag;
    if (!(words >> tag)) continue;
    if (tag == "next") {
      words >> ledger.next_ticket;
    } else if (tag == "peak") {
      std::string kind;
      KindPeaks peaks;
      if (words >> kind >> peaks.highest >> peaks.count >> peaks.sum_input >> peaks.sum_peak >>
          peaks.sum_input_squared >> peaks.sum_input_peak >> peaks.most_per_mib >> peaks.largest_input >>
          peaks.fell >> peaks.most_after_fall)
        ledger.peaks[kind] = peaks;
    } else if (tag == "run" || tag == "wait") {
      LedgerEntry entry;
      entry.running = tag == "run";
      if (words >> entry.pid >> entry.started >> entry.ticket >> entry.kib >> entry.since_ms)
        ledger.entries.push_back(entry);
    }
    if (words.fail()) return {};
  }
  return ledger;
}

std::string FormatMemoryLedger(const MemoryLedger& ledger) {
  std::ostringstream text;
  text << "next " << ledger.next_ticket << "\n";
  for (const auto& [kind, peaks] : ledger.peaks) {
    text << "peak " << kind << " " << peaks.highest << " " << peaks.count << " " << peaks.sum_input << " "
         << peaks.sum_peak << " " << peaks.sum_input_squared << " " << peaks.sum_input_peak << " "
         << peaks.most_per_mib << " " << peaks.largest_input << " " << peaks.fell << " "
         << peaks.most_after_fall << "\n";
  }
  for (const LedgerEntry& entry : ledger.entries) {
    text << (entry.running ? "run " : "wait ") << entry.pid << " " << entry.started << " " << entry.ticket
         << " " << entry.kib << " " << entry.since_ms << "\n";
  }
  return text.str();
}

namespace {

/// Where the least-squares line of `peaks` puts a step of `input`, or
/// nullopt without a rising line of three steps or more.
std::optional<double> OnLine(const KindPeaks& peaks, int64_t input) {
  if (peaks.count < 3 || input <= 0) return std::nullopt;
  const double n = static_cast<double>(peaks.count), x = static_cast<double>(peaks.sum_input),
               y = static_cast<double>(peaks.sum_peak);
  const double spread = n * static_cast<double>(peaks.sum_input_squared) - x * x;
  if (spread <= 0) return std::nullopt;
  const double slope = (n * static_cast<double>(peaks.sum_input_peak) - x * y) / spread;
  if (slope <= 0) return std::nullopt;
  return (y - slope * x) / n + slope * static_cast<double>(input);
}

/// The most a step of `input` is expected to reach where steps of its
/// kind had inputs as large: nullopt where fewer than three had.
std::optional<int64_t> SeenAlike(const KindPeaks& peaks, int64_t input) {
  if (peaks.count < 3 || input <= 0 || input > peaks.largest_input + peaks.largest_input / 8)
    return std::nullopt;
  const int64_t grown = peaks.highest * std::max(input, peaks.largest_input) / peaks.largest_input;
  return grown + grown / 32 + 8 * 1024;
}

}  // namespace

int64_t ExpectedPeak(const MemoryLedger& ledger, const MemoryRequest& request) {
  if (request.own_peak > 0) return request.own_peak + request.own_peak / 8 + 8 * 1024;
  auto learned = ledger.peaks.find(request.kind);
  const KindPeaks peaks = learned == ledger.peaks.end() ? KindPeaks{} : learned->second;
  const int64_t known = std::max(request.earlier_peak, peaks.highest);
  if (known <= 0) return request.guess;
  const int64_t most = known + known / 4;
  int64_t expected = std::max(most, peaks.most_per_mib * request.input / 1024 * 5 / 4);
  if (std::optional<double> line = OnLine(peaks, request.input)) {
    const auto on_line = static_cast<int64_t>(*line);
    expected = std::max(std::min(most, on_line + on_line / 2 + 16 * 1024), on_line + on_line / 4);
  }
  return std::min(expected, SeenAlike(peaks, request.input).value_or(expected));
}

void ResidentTrace::Sample(int64_t kib) {
  if (Fell()) {
    after_fall = std::max(after_fall, kib);
  } else if (high >= kFallFromKib && kib <= high / 2) {
    before_fall = high;
    after_fall = kib;
  }
  high = std::max(high, kib);
}

int64_t HeldBack(const KindPeaks& peaks, const ResidentTrace& trace, int64_t expected) {
  if (!trace.Fell()) return std::max(expected, trace.high);
  if (peaks.fell < 3) return std::max(trace.after_fall, std::min(expected, trace.high + trace.high / 4));
  const int64_t most = std::max(trace.after_fall, trace.before_fall * peaks.most_after_fall / 1000);
  return std::max(trace.after_fall, std::min(expected, most + most / 8 + 8 * 1024));
}

bool Hold(MemoryLedger& ledger, int64_t ticket, int64_t kib) {
  for (LedgerEntry& entry : ledger.entries) {
    if (entry.ticket != ticket) continue;
    entry.kib = kib;
    return true;
  }
  return false;
}

LedgerEntry& JoinQueue(MemoryLedger& ledger, int64_t pid, int64_t started, int64_t kib, int64_t now_ms) {
  ledger.entries.push_back({pid, started, ledger.next_ticket++, kib, /*running=*/false, now_ms});
  return ledger.entries.back();
}

bool MayStart(const MemoryLedger& ledger, int64_t ticket, int64_t budget_kib, int64_t now_ms) {
  int64_t running = 0, ahead = 0, kib = 0;
  const LedgerEntry* first = nullptr;
  for (const LedgerEntry& entry : ledger.entries) {
    if (entry.ticket == ticket) kib = entry.kib;
    else if (entry.running) running += entry.kib;
    else if (entry.ticket < ticket) {
      ahead += entry.kib;
      if (!first || entry.ticket < first->ticket) first = &entry;
    }
  }
  if (!first) return running == 0 || running + kib <= budget_kib;
  if (running + ahead + kib <= budget_kib) return true;
  return kib <= budget_kib / 8 && running + kib <= budget_kib && now_ms - first->since_ms < kPassingWindowMs;
}

void LeaveLedger(MemoryLedger& ledger, int64_t ticket, const std::string& kind, int64_t peak, int64_t input,
                 const ResidentTrace& trace) {
  std::erase_if(ledger.entries, [&](const LedgerEntry& entry) { return entry.ticket == ticket; });
  if (kind.empty() || peak <= 0) return;
  KindPeaks& peaks = ledger.peaks[kind];
  peaks.highest = std::max(peaks.highest, peak);
  if (trace.Fell()) {
    ++peaks.fell;
    peaks.most_after_fall = std::max(peaks.most_after_fall, trace.after_fall * 1000 / trace.before_fall);
  }
  if (input <= 0) return;
  peaks.most_per_mib = std::max(peaks.most_per_mib, peak * 1024 / input);
  ++peaks.count;
  peaks.sum_input += input;
  peaks.sum_peak += peak;
  peaks.sum_input_squared += input * input;
  peaks.sum_input_peak += input * peak;
  peaks.largest_input = std::max(peaks.largest_input, input);
}

}  // namespace fastcuda

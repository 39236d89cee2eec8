#include "src/base/memory_ledger.h"

#include <algorithm>
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
      int64_t kib = 0;
      if (words >> kind >> kib) ledger.peak_of_kind[kind] = kib;
    } else if (tag == "run" || tag == "wait") {
      LedgerEntry entry;
      entry.running = tag == "run";
      if (words >> entry.pid >> entry.ticket >> entry.kib >> entry.since_ms) ledger.entries.push_back(entry);
    }
    if (words.fail()) return {};
  }
  return ledger;
}

std::string FormatMemoryLedger(const MemoryLedger& ledger) {
  std::ostringstream text;
  text << "next " << ledger.next_ticket << "\n";
  for (const auto& [kind, kib] : ledger.peak_of_kind) text << "peak " << kind << " " << kib << "\n";
  for (const LedgerEntry& entry : ledger.entries) {
    text << (entry.running ? "run " : "wait ") << entry.pid << " " << entry.ticket << " " << entry.kib << " "
         << entry.since_ms << "\n";
  }
  return text.str();
}

int64_t ExpectedPeak(const MemoryLedger& ledger, const MemoryRequest& request) {
  int64_t known = request.earlier_peak;
  if (auto learned = ledger.peak_of_kind.find(request.kind); learned != ledger.peak_of_kind.end())
    known = std::max(known, learned->second);
  return known > 0 ? known + known / 4 : request.guess;
}

LedgerEntry& JoinQueue(MemoryLedger& ledger, int64_t pid, int64_t kib, int64_t now_ms) {
  ledger.entries.push_back({pid, ledger.next_ticket++, kib, /*running=*/false, now_ms});
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

void LeaveLedger(MemoryLedger& ledger, int64_t ticket, const std::string& kind, int64_t peak_kib) {
  std::erase_if(ledger.entries, [&](const LedgerEntry& entry) { return entry.ticket == ticket; });
  if (kind.empty() || peak_kib <= 0) return;
  int64_t& peak = ledger.peak_of_kind[kind];
  peak = std::max(peak, peak_kib);
}

}  // namespace fastcuda

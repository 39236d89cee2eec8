// The memory ledger of a graph: which steps hold which part of its memory
// budget, which wait for one, and the peaks each kind of step has reached.
// Steps take their part of the budget by the peak they are expected to
// reach, one step at a time, in the order they came; the file that holds
// the ledger is read and rewritten under a lock (MemoryAdmission).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace fastcuda {

/// A step in the ledger: one that runs its program, or waits to.
struct LedgerEntry {
  int64_t pid = 0;     ///< the `fastcuda step` process
  int64_t ticket = 0;  ///< the order steps came in
  int64_t kib = 0;     ///< the peak it is expected to reach
  bool running = false;
  int64_t since_ms = 0;  ///< when it came (a clock every step reads alike)
};

/// The ledger as its file holds it.
struct MemoryLedger {
  int64_t next_ticket = 1;
  std::vector<LedgerEntry> entries;
  std::map<std::string, int64_t> peak_of_kind;  ///< the highest peak (KiB) a step of each kind reached
};

/// The ledger in its file's text; an empty ledger for an empty or damaged one.
MemoryLedger ParseMemoryLedger(std::string_view text);
std::string FormatMemoryLedger(const MemoryLedger& ledger);

/// What a step asks the ledger for.
struct MemoryRequest {
  std::string kind;          ///< the kind of step, whose peaks the ledger learns
  int64_t earlier_peak = 0;  ///< the highest peak (KiB) of its kind in earlier builds; 0: none known
  int64_t guess = 0;         ///< its peak where none of its kind is known
  int64_t budget = 0;        ///< the graph's memory budget (KiB)
};

/// The peak a step is expected to reach: a quarter over the highest one of
/// its kind so far (in the ledger, or in earlier builds), else its guess.
int64_t ExpectedPeak(const MemoryLedger& ledger, const MemoryRequest& request);

/// Adds a step that waits, from `now_ms`, for `kib`; it takes the next ticket.
LedgerEntry& JoinQueue(MemoryLedger& ledger, int64_t pid, int64_t kib, int64_t now_ms);

/// How long the first step in the queue lets light steps pass it (below).
inline constexpr int64_t kPassingWindowMs = 2000;

/// True where the waiting step `ticket` may start its program within
/// `budget_kib`: the first in the queue when the running steps leave room
/// for it, or nothing runs (a step that needs more than the budget runs
/// alone); a later one where the running steps and those before it leave
/// room for it all. A light step (an eighth of the budget at most) may also
/// pass the steps before it where the running ones leave room for it, for as
/// long as the first in the queue has waited less than kPassingWindowMs: a
/// preprocessor step should not idle behind a compiler that waits for
/// memory, nor keep one from it for long.
bool MayStart(const MemoryLedger& ledger, int64_t ticket, int64_t budget_kib, int64_t now_ms);

/// Removes the entries of processes that `alive` says have ended (a step
/// killed before it could leave).
template <typename Alive>
void DropEnded(MemoryLedger& ledger, Alive alive) {
  std::erase_if(ledger.entries, [&](const LedgerEntry& entry) { return !alive(entry.pid); });
}

/// The step `ticket` leaves the ledger, having reached `peak_kib` as a step of `kind`.
void LeaveLedger(MemoryLedger& ledger, int64_t ticket, const std::string& kind, int64_t peak_kib);

}  // namespace fastcuda

// The memory ledger of a graph: which steps hold which part of its memory
// budget, which wait for one, and the peaks each kind of step has reached.
// Steps take their part of the budget by the peak they are expected to
// reach, one step at a time, in the order they came, and hold less of it
// once they have fallen from their high as their kind's steps were seen to
// (HeldBack); the file that holds the ledger is read and rewritten
// under a lock (MemoryAdmission).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace fastcuda {

/// A step in the ledger: one that runs its program, or waits to.
struct LedgerEntry {
  int64_t pid = 0;      ///< the `fastcuda step` process
  int64_t started = 0;  ///< when it started (ProcessStart): a new process of a reused pid is another
  int64_t ticket = 0;   ///< the order steps came in
  int64_t kib = 0;      ///< the peak it is expected to reach
  bool running = false;
  int64_t since_ms = 0;  ///< when it came (a clock every step reads alike)
};

/// What the ledger learned of the peaks of one kind of step: the highest,
/// and the sums of a least-squares line of peak over input size (a
/// compiler's peak grows with its input, nearly in proportion: cicc's,
/// cudafe++'s and the host compiler's with the preprocessed source's size).
/// KiB throughout.
struct KindPeaks {
  int64_t highest = 0;
  int64_t count = 0;  ///< the steps with an input size in the sums
  int64_t sum_input = 0, sum_peak = 0, sum_input_squared = 0, sum_input_peak = 0;
  int64_t most_per_mib = 0;     ///< the highest peak (KiB) per MiB of input of those steps
  int64_t largest_input = 0;    ///< the largest input of those steps
  int64_t fell = 0;             ///< the steps whose resident memory fell from its high (ResidentTrace)
  int64_t most_after_fall = 0;  ///< the highest of theirs after the fall, per mille of the high before
};

/// What a step's program held over its run, sampled as it ran: whether it
/// fell to half its high or less once past kFallFromKib (cicc frees its
/// front end's memory within the first quarter of its run and holds 30-40 %
/// of its peak after), and the most it held after that fall.
struct ResidentTrace {
  int64_t high = 0;         ///< the highest sample so far
  int64_t before_fall = 0;  ///< the high when it fell; 0: it has not fallen
  int64_t after_fall = 0;   ///< the highest sample since it fell
  /// Takes one sample of what the program holds (KiB).
  void Sample(int64_t kib);
  bool Fell() const { return before_fall > 0; }
};

/// A fall from less than this is no sign of a step's later course (a
/// compiler driver before its compiler starts).
inline constexpr int64_t kFallFromKib = 64 * 1024;

/// The ledger as its file holds it.
struct MemoryLedger {
  int64_t next_ticket = 1;
  std::vector<LedgerEntry> entries;
  std::map<std::string, KindPeaks> peaks;  ///< by kind of step
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
  int64_t input = 0;         ///< the size (KiB) of the input its peak grows with; 0: unknown
  int64_t own_peak = 0;      ///< the peak (KiB) this very step reached in an earlier build; 0: unknown
};

/// The peak a step is expected to reach: an eighth over its own in an
/// earlier build, and 8 MiB; else a quarter over the highest one of
/// its kind so far (in the ledger, or in earlier builds), else its guess;
/// less where the ledger's line of its kind (three steps or more, rising)
/// puts a step of its input size lower: half over the line, and 16 MiB
/// (cicc's peaks lie within a seventh of the line of the steps before them).
/// A step of a larger input than those before expects more: a quarter
/// over the line, or without one over its input times the highest peak
/// per input of its kind (a CUB TU's cicc after light TUs' ones).
/// Where three steps or more of its kind had inputs as large (within an
/// eighth), it expects no more than their highest peak, grown with its
/// input, a 32nd over it and 8 MiB: a margin of a quarter there kept one
/// cicc of four out of a budget that plain nvcc's four fitted in.
int64_t ExpectedPeak(const MemoryLedger& ledger, const MemoryRequest& request);

/// What a running step (`trace`) holds back of the budget, having started
/// with `expected`. Before its program falls, `expected`, or its high where
/// that is more: a step may reach its peak at any time before it falls
/// (cudafe++ and the host compile reach theirs near their end), and one
/// past what it expected holds what it holds. Once it has fallen: where
/// three steps of its kind or more fell before it, the most those held
/// after their fall (a fraction of the high before it) or what it holds
/// now, whichever is more, an eighth over it and 8 MiB; where fewer did, a
/// quarter over its own high (a first build's cicc that started with its
/// guess); no more than `expected`, and no less than it has held since.
int64_t HeldBack(const KindPeaks& peaks, const ResidentTrace& trace, int64_t expected);

/// Sets what the running step `ticket` holds back of the budget; false
/// where it is not in the ledger.
bool Hold(MemoryLedger& ledger, int64_t ticket, int64_t kib);

/// Adds a step (`pid`, `started`) that waits, from `now_ms`, for `kib`; it
/// takes the next ticket.
LedgerEntry& JoinQueue(MemoryLedger& ledger, int64_t pid, int64_t started, int64_t kib, int64_t now_ms);

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

/// Removes the entries of processes that have ended (a step killed before
/// it could leave; the machine restarted): where `start_of(pid)` is not the
/// start the entry holds.
template <typename StartOf>
void DropEnded(MemoryLedger& ledger, StartOf start_of) {
  std::erase_if(ledger.entries,
                [&](const LedgerEntry& entry) { return start_of(entry.pid) != entry.started; });
}

/// The step `ticket` leaves the ledger, having reached `peak` as a step of
/// `kind` with an input of `input` (KiB; 0: unknown, or not measured), its
/// program's samples `trace` (none where the step ended unsampled).
void LeaveLedger(MemoryLedger& ledger, int64_t ticket, const std::string& kind, int64_t peak, int64_t input,
                 const ResidentTrace& trace = {});

}  // namespace fastcuda

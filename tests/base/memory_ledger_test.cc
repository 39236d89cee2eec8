#include <doctest/doctest.h>

#include "src/base/memory_ledger.h"

using namespace fastcuda;

namespace {

constexpr int64_t kLedgerGiB = 1024 * 1024;

/// A ledger with steps running and waiting, by ticket: `running` and
/// `waiting` hold (KiB, since_ms) of each.
MemoryLedger LedgerOf(const std::vector<int64_t>& running,
                      const std::vector<std::pair<int64_t, int64_t>>& waiting) {
  MemoryLedger ledger;
  for (int64_t kib : running) {
    const int64_t pid = 100 + ledger.next_ticket;
    ledger.entries.push_back({pid, pid * 10, ledger.next_ticket++, kib, true, 0});
  }
  for (const auto& [kib, since] : waiting) {
    const int64_t pid = 100 + ledger.next_ticket;
    JoinQueue(ledger, pid, pid * 10, kib, since);
  }
  return ledger;
}

}  // namespace

TEST_CASE("memory ledger: its file's text and back; a damaged one is an empty ledger") {
  MemoryLedger ledger = LedgerOf({kLedgerGiB}, {{2 * kLedgerGiB, 5}});
  ledger.peaks["CICC"] = {700 * 1024, 2, 3, 4, 5, 6, 7, 8, 9, 10};
  const std::string text = FormatMemoryLedger(ledger);
  CHECK(text ==
        "next 3\npeak CICC 716800 2 3 4 5 6 7 8 9 10\nrun 101 1010 1 1048576 0\nwait 102 1020 2 2097152 5\n");
  CHECK(FormatMemoryLedger(ParseMemoryLedger(text)) == text);
  CHECK(ParseMemoryLedger("").entries.empty());
  const MemoryLedger damaged = ParseMemoryLedger("next 3\nrun 101 1010 1\n");
  CHECK(damaged.entries.empty());
  CHECK(damaged.next_ticket == 1);
}

TEST_CASE("memory ledger: a step expects a quarter over its kind's highest peak, else its guess") {
  MemoryLedger ledger;
  MemoryRequest cicc{"CICC", 0, kLedgerGiB, 4 * kLedgerGiB};
  CHECK(ExpectedPeak(ledger, cicc) == kLedgerGiB);
  cicc.earlier_peak = 400 * 1024;  // an earlier build's
  CHECK(ExpectedPeak(ledger, cicc) == 500 * 1024);
  ledger.peaks["CICC"].highest = 800 * 1024;  // this build's, higher
  CHECK(ExpectedPeak(ledger, cicc) == 1000 * 1024);
  CHECK(ExpectedPeak(ledger, MemoryRequest{"PTXAS", 0, 512 * 1024, 4 * kLedgerGiB}) == 512 * 1024);
  // The step's own peak in an earlier build: an eighth over it, and 8 MiB.
  cicc.own_peak = 200 * 1024;
  CHECK(ExpectedPeak(ledger, cicc) == 225 * 1024 + 8 * 1024);
}

TEST_CASE("memory ledger: the first in the queue starts where the running steps leave room, or alone") {
  CHECK(MayStart(LedgerOf({}, {{8 * kLedgerGiB, 0}}), 1, 4 * kLedgerGiB, 0));  // more than the budget: alone
  CHECK(MayStart(LedgerOf({kLedgerGiB, kLedgerGiB}, {{2 * kLedgerGiB, 0}}), 3, 4 * kLedgerGiB, 0));
  CHECK_FALSE(MayStart(LedgerOf({kLedgerGiB, kLedgerGiB}, {{3 * kLedgerGiB, 0}}), 3, 4 * kLedgerGiB, 0));
}

TEST_CASE("memory ledger: a later step waits behind the first, but a light one may pass it for a while") {
  const int64_t budget = 4 * kLedgerGiB;
  // Running 2 GiB; the first waits for 3 GiB: neither 1 GiB nor 256 MiB
  // after it may start beside it, but the light 256 MiB (an eighth of the
  // budget at most) may pass it while it has waited less than the window.
  MemoryLedger ledger =
      LedgerOf({2 * kLedgerGiB}, {{3 * kLedgerGiB, 1000}, {kLedgerGiB, 1000}, {256 * 1024, 1000}});
  CHECK_FALSE(MayStart(ledger, 2, budget, 1000));
  CHECK_FALSE(MayStart(ledger, 3, budget, 1000));
  CHECK(MayStart(ledger, 4, budget, 1000 + kPassingWindowMs - 1));
  CHECK_FALSE(MayStart(ledger, 4, budget, 1000 + kPassingWindowMs));
  // Where the first fits, so do the later ones that fit beside it.
  MemoryLedger roomy = LedgerOf({kLedgerGiB}, {{kLedgerGiB, 0}, {kLedgerGiB, 0}, {2 * kLedgerGiB, 0}});
  CHECK(MayStart(roomy, 2, budget, 0));
  CHECK(MayStart(roomy, 3, budget, 0));
  CHECK_FALSE(MayStart(roomy, 4, budget, 0));
}

TEST_CASE("memory ledger: ended processes leave; a step that leaves raises its kind's peak") {
  MemoryLedger ledger = LedgerOf({kLedgerGiB, kLedgerGiB}, {{kLedgerGiB, 0}});
  DropEnded(ledger, [](int64_t pid) { return pid == 101 ? -1 : pid * 10; });
  REQUIRE(ledger.entries.size() == 2);
  CHECK(ledger.entries.front().ticket == 2);
  LeaveLedger(ledger, 2, "CICC", 600 * 1024, 3000);
  LeaveLedger(ledger, 3, "CICC", 500 * 1024, 0);  // no input size: the highest only
  CHECK(ledger.entries.empty());
  const KindPeaks& cicc = ledger.peaks.at("CICC");
  CHECK(cicc.highest == 600 * 1024);
  CHECK(cicc.count == 1);
  CHECK(cicc.sum_input_peak == 3000 * 600 * 1024);
  LeaveLedger(ledger, 9, "PTXAS", 0, 100);  // a peak not measured teaches nothing
  CHECK_FALSE(ledger.peaks.count("PTXAS"));
}

TEST_CASE("memory ledger: a kind whose peak grows with its input expects a step's from its input's size") {
  MemoryLedger ledger;
  // cicc: 40 MiB plus 60 KiB per KiB of input, as three steps taught.
  for (int64_t input : {1000, 4000, 8000}) LeaveLedger(ledger, 0, "CICC", 40 * 1024 + 60 * input, input);
  const int64_t highest = 40 * 1024 + 60 * 8000;
  MemoryRequest small{"CICC", 0, kLedgerGiB, 4 * kLedgerGiB, 1500};
  CHECK(ExpectedPeak(ledger, small) == static_cast<int64_t>((40 * 1024 + 60 * 1500) * 1.5) + 16 * 1024);
  MemoryRequest large{"CICC", 0, kLedgerGiB, 4 * kLedgerGiB,
                      20000};  // a larger input than any before: a quarter over the line
  CHECK(ExpectedPeak(ledger, large) == (40 * 1024 + 60 * 20000) * 5 / 4);
  MemoryRequest unknown_size{"CICC", 0, kLedgerGiB, 4 * kLedgerGiB, 0};
  CHECK(ExpectedPeak(ledger, unknown_size) == highest + highest / 4);
  // A line that falls: no line; for an input as large as those before, a
  // 32nd over the highest peak and 8 MiB.
  MemoryLedger falling;
  for (int64_t input : {1000, 4000, 8000}) LeaveLedger(falling, 0, "PTXAS", 900 * 1024 - 50 * input, input);
  const int64_t falling_highest = 900 * 1024 - 50 * 1000;
  CHECK(ExpectedPeak(falling, MemoryRequest{"PTXAS", 0, kLedgerGiB, 4 * kLedgerGiB, 1000}) ==
        falling_highest + falling_highest / 32 + 8 * 1024);
}

TEST_CASE("memory ledger: after three steps alike, a step expects a 32nd over their highest peak") {
  // Heavy TUs' ciccs: 490 to 492 MiB from inputs of 8.1 to 8.3 MiB. A quarter
  // over them (615 MiB) let three run in a budget of 2140 MiB; four fit.
  MemoryLedger ledger;
  const int64_t highest = 492 * 1024;
  MemoryRequest alike{"CICC", 0, kLedgerGiB, 2140 * 1024, 8400};
  for (auto [peak, input] : std::vector<std::pair<int64_t, int64_t>>{{490, 8100}, {492, 8300}}) {
    LeaveLedger(ledger, 0, "CICC", peak * 1024, input);
  }
  CHECK(ExpectedPeak(ledger, alike) >= highest + highest / 4);  // two steps teach no more
  LeaveLedger(ledger, 0, "CICC", 491 * 1024, 8200);
  const int64_t grown = highest * 8400 / 8300;  // within an eighth of the largest input: grown with it
  CHECK(ExpectedPeak(ledger, alike) == grown + grown / 32 + 8 * 1024);
  CHECK(4 * ExpectedPeak(ledger, alike) <= alike.budget);
  alike.input = 8300 + 8300 / 8 + 1;  // larger by more than an eighth: as before
  CHECK(ExpectedPeak(ledger, alike) > highest + highest / 4);
}

TEST_CASE(
    "memory ledger: without a line, a larger input expects as much more as its kind's peaks per input") {
  MemoryLedger ledger;
  LeaveLedger(ledger, 0, "CICC", 100 * 1024, 1000);  // a light TU's cicc: 100 MiB for 1000 KiB
  CHECK(ledger.peaks.at("CICC").most_per_mib == 100 * 1024 * 1024 / 1000);
  const int64_t per_mib = ledger.peaks.at("CICC").most_per_mib;
  // A CUB TU's, eight times the input: not the light one's quarter over.
  CHECK(ExpectedPeak(ledger, MemoryRequest{"CICC", 0, kLedgerGiB, 4 * kLedgerGiB, 8000}) ==
        per_mib * 8000 / 1024 * 5 / 4);
  // A smaller input, or none known: the highest's quarter over.
  CHECK(ExpectedPeak(ledger, MemoryRequest{"CICC", 0, kLedgerGiB, 4 * kLedgerGiB, 500}) == 125 * 1024);
  CHECK(ExpectedPeak(ledger, MemoryRequest{"CICC", 0, kLedgerGiB, 4 * kLedgerGiB, 0}) == 125 * 1024);
}

namespace {

/// A trace of samples (MiB).
ResidentTrace TraceOf(const std::vector<int64_t>& mib) {
  ResidentTrace trace;
  for (int64_t sample : mib) trace.Sample(sample * 1024);
  return trace;
}

}  // namespace

TEST_CASE("memory ledger: a step falls once it holds half its high or less, from 64 MiB or more") {
  // cicc on a heavy TU, sampled (MiB): up to its peak, then a third of it.
  ResidentTrace cicc = TraceOf({120, 312, 477, 260});
  CHECK_FALSE(cicc.Fell());
  cicc.Sample(191 * 1024);
  REQUIRE(cicc.Fell());
  CHECK(cicc.before_fall == 477 * 1024);
  for (int64_t sample : {181, 200, 154}) cicc.Sample(sample * 1024);
  CHECK(cicc.after_fall == 200 * 1024);
  // cudafe++ and the host compile grow to their peaks near their end.
  CHECK_FALSE(TraceOf({167, 194, 284, 433, 462}).Fell());
  // A compiler driver's few MiB before its compiler starts are no high.
  CHECK_FALSE(TraceOf({60, 20, 200, 290}).Fell());
}

TEST_CASE("memory ledger: a step that fell holds what its kind held after falling, once three fell") {
  const int64_t expected = 545 * 1024;
  ResidentTrace fallen = TraceOf({477, 191});
  MemoryLedger ledger;
  for (int64_t after : {150, 200, 180}) {
    // Fewer than three fell: a quarter over its own high, where it expected more (a first build's guess).
    CHECK(HeldBack(ledger.peaks["CICC"], fallen, expected) == expected);
    CHECK(HeldBack(ledger.peaks["CICC"], fallen, kLedgerGiB) == 477 * 1024 + 477 * 1024 / 4);
    LeaveLedger(ledger, 0, "CICC", 480 * 1024, 0, TraceOf({480, 100, after}));
  }
  const KindPeaks peaks = ledger.peaks.at("CICC");
  CHECK(peaks.fell == 3);
  CHECK(peaks.most_after_fall == 200 * 1000 / 480);
  // 477 MiB × 416 per mille: 198 MiB, an eighth over it and 8 MiB.
  const int64_t most = 477 * 1024 * 416 / 1000;
  CHECK(HeldBack(peaks, fallen, expected) == most + most / 8 + 8 * 1024);
  // What it holds now, where that is more; no more than it started with,
  // unless it has held more since its fall.
  fallen.Sample(300 * 1024);
  CHECK(HeldBack(peaks, fallen, expected) == 300 * 1024 + 300 * 1024 / 8 + 8 * 1024);
  fallen.Sample(520 * 1024);
  CHECK(HeldBack(peaks, fallen, expected) == expected);
  fallen.Sample(600 * 1024);
  CHECK(HeldBack(peaks, fallen, expected) == 600 * 1024);
  // A step that has not fallen holds what it expects: its peak may come at
  // its end; one that grew past it, its high.
  CHECK(HeldBack(peaks, TraceOf({167, 462}), expected) == expected);
  CHECK(HeldBack(peaks, TraceOf({167, 462, 700}), expected) == 700 * 1024);
  // Steps that did not fall teach nothing of falls.
  LeaveLedger(ledger, 0, "CICC", 480 * 1024, 0, TraceOf({100, 480}));
  CHECK(ledger.peaks.at("CICC").fell == 3);
}

TEST_CASE("memory ledger: a running step's hold is set in place") {
  MemoryLedger ledger = LedgerOf({2 * kLedgerGiB, kLedgerGiB}, {{2 * kLedgerGiB, 0}});
  CHECK_FALSE(MayStart(ledger, 3, 4 * kLedgerGiB, 0));
  CHECK(Hold(ledger, 1, kLedgerGiB));
  CHECK(MayStart(ledger, 3, 4 * kLedgerGiB, 0));
  CHECK_FALSE(Hold(ledger, 9, kLedgerGiB));
}

#include <doctest/doctest.h>

#include "src/base/memory_admission.h"
#include "tests/test_support.h"

using namespace fastcuda;

namespace {

constexpr int64_t kAdmissionGiB = 1024 * 1024;
const std::string kLedger = "/graph/step-locks/memory-ledger";

/// Locks that one thread always gets; it counts them.
class SingleHolderLocks : public LockFiles {
 public:
  bool Lock(const std::string&, LockKind) override { return ++held == 1; }
  void Unlock(const std::string&) override { --held; }
  int held = 0;
};

/// Hooks of a step with process id `pid`, whose pauses run `on_sleep`; its
/// program holds nothing unless `resident_kib` says otherwise.
AdmissionHooks HooksOf(int64_t pid, std::function<void()> on_sleep, const std::set<int64_t>& ended = {}) {
  AdmissionHooks hooks;
  hooks.resident_kib = [](int64_t) { return int64_t{0}; };
  hooks.pid = [pid] { return pid; };
  hooks.start_of = [ended](int64_t other) { return ended.count(other) ? int64_t{-1} : other * 1000; };
  hooks.now_ms = [] { return int64_t{0}; };
  hooks.sleep_ms = [on_sleep](int64_t) { on_sleep(); };
  return hooks;
}

MemoryLedger LedgerIn(const testing::FakeFileSystem& fs) {
  return ParseMemoryLedger(fs.Read(kLedger).value_or(""));
}

}  // namespace

TEST_CASE("memory admission: a step that fits starts at once, and on its way out records its peak") {
  testing::FakeFileSystem fs;
  SingleHolderLocks locks;
  MemoryAdmission admission(locks, fs, "/graph/step-locks", HooksOf(10, [] { FAIL("it waited"); }));
  CHECK(admission.Enter({"CICC", 0, kAdmissionGiB, 4 * kAdmissionGiB}) == kAdmissionGiB);
  MemoryLedger ledger = LedgerIn(fs);
  REQUIRE(ledger.entries.size() == 1);
  CHECK(ledger.entries[0].running);
  CHECK(ledger.entries[0].pid == 10);
  admission.Leave(300 * 1024);
  ledger = LedgerIn(fs);
  CHECK(ledger.entries.empty());
  CHECK(ledger.peaks.at("CICC").highest == 300 * 1024);
  CHECK(locks.held == 0);
}

TEST_CASE(
    "memory admission: a step waits until a running one leaves room, then expects what that one taught") {
  testing::FakeFileSystem fs;
  SingleHolderLocks locks;
  MemoryAdmission first(locks, fs, "/graph/step-locks", HooksOf(10, [] {}));
  first.Enter({"CICC", 0, 3 * kAdmissionGiB, 4 * kAdmissionGiB});
  int pauses = 0;
  MemoryAdmission second(locks, fs, "/graph/step-locks", HooksOf(11, [&] {
                           if (++pauses == 3) first.Leave(kAdmissionGiB);
                         }));
  // 3 GiB of 4 run: the second's 3 GiB must wait; once the first taught
  // its peak, the second expects a quarter over it and starts.
  CHECK(second.Enter({"CICC", 0, 3 * kAdmissionGiB, 4 * kAdmissionGiB}) == kAdmissionGiB + kAdmissionGiB / 4);
  CHECK(pauses == 3);
  MemoryAdmission third(locks, fs, "/graph/step-locks", HooksOf(12, [] {}));
  CHECK(third.Enter({"CICC", 0, 3 * kAdmissionGiB, 8 * kAdmissionGiB}) == kAdmissionGiB + kAdmissionGiB / 4);
}

TEST_CASE("memory admission: the entry of a step whose process ended holds nothing back") {
  testing::FakeFileSystem fs;
  MemoryLedger left;
  left.entries.push_back({99, 99000, left.next_ticket++, 4 * kAdmissionGiB, true, 0});
  fs.Write(kLedger, FormatMemoryLedger(left));
  SingleHolderLocks locks;
  MemoryAdmission admission(locks, fs, "/graph/step-locks", HooksOf(10, [] { FAIL("it waited"); }, {99}));
  admission.Enter({"PTXAS", 0, kAdmissionGiB, 4 * kAdmissionGiB});
  CHECK(LedgerIn(fs).entries.size() == 1);
}

TEST_CASE("memory admission: a step interrupted while it waits leaves the queue") {
  testing::FakeFileSystem fs;
  SingleHolderLocks locks;
  MemoryAdmission running(locks, fs, "/graph/step-locks", HooksOf(10, [] {}));
  running.Enter({"CICC", 0, 4 * kAdmissionGiB, 4 * kAdmissionGiB});
  {
    MemoryAdmission waiting(locks, fs, "/graph/step-locks",
                            HooksOf(11, [] { throw std::runtime_error("interrupted"); }));
    CHECK_THROWS(waiting.Enter({"CICC", 0, kAdmissionGiB, 4 * kAdmissionGiB}));
    CHECK(LedgerIn(fs).entries.size() == 2);
  }
  CHECK(LedgerIn(fs).entries.size() == 1);
  CHECK(locks.held == 0);
}

TEST_CASE("memory admission: an entry whose pid another process has now holds nothing back") {
  testing::FakeFileSystem fs;
  MemoryLedger left;
  left.entries.push_back({10, 5, left.next_ticket++, 4 * kAdmissionGiB, true, 0});  // pid 10 started at 5
  fs.Write(kLedger, FormatMemoryLedger(left));
  SingleHolderLocks locks;
  MemoryAdmission admission(locks, fs, "/graph/step-locks", HooksOf(11, [] { FAIL("it waited"); }));
  admission.Enter({"PTXAS", 0, kAdmissionGiB, 4 * kAdmissionGiB});  // pid 10 started at 10000 now
  CHECK(LedgerIn(fs).entries.size() == 1);
}

TEST_CASE("memory admission: a step that fell from its high holds less, and a waiting one starts beside it") {
  testing::FakeFileSystem fs;
  MemoryLedger learned;  // three ciccs fell before, and held half their high at most after
  learned.peaks["CICC"] = {480 * 1024, 0, 0, 0, 0, 0, 0, 0, 3, 500};
  fs.Write(kLedger, FormatMemoryLedger(learned));
  SingleHolderLocks locks;
  std::vector<int64_t> samples = {470 * 1024, 0, 190 * 1024};  // 0: no sample (a program that ended)
  AdmissionHooks hooks = HooksOf(10, [] { FAIL("it waited"); });
  hooks.resident_kib = [&](int64_t child) {
    CHECK(child == 4242);
    const int64_t sample = samples.front();
    samples.erase(samples.begin());
    return sample;
  };
  MemoryAdmission running(locks, fs, "/graph/step-locks", hooks);
  const int64_t expected = running.Enter({"CICC", 0, kAdmissionGiB, kAdmissionGiB});
  CHECK(expected == 600 * 1024);
  running.Watch(4242);
  running.Watch(4242);
  CHECK(LedgerIn(fs).entries.at(0).kib == expected);  // at its high: it may yet grow
  running.Watch(4242);
  const int64_t most = 470 * 1024 * 500 / 1000;  // more than the 190 MiB it holds
  CHECK(LedgerIn(fs).entries.at(0).kib == most + most / 8 + 8 * 1024);
  MemoryAdmission beside(locks, fs, "/graph/step-locks", HooksOf(11, [] { FAIL("it waited"); }));
  beside.Enter({"CICC", 0, kAdmissionGiB, kAdmissionGiB});
  running.Leave(480 * 1024);
  CHECK(LedgerIn(fs).peaks.at("CICC").fell == 4);
}

TEST_CASE("memory admission: a first build's step that fell teaches the steps waiting its kind's high") {
  testing::FakeFileSystem fs;
  SingleHolderLocks locks;
  std::vector<int64_t> samples = {480 * 1024, 200 * 1024};
  AdmissionHooks hooks = HooksOf(10, [] {});
  hooks.resident_kib = [&](int64_t) {
    const int64_t sample = samples.front();
    samples.erase(samples.begin());
    return sample;
  };
  MemoryAdmission running(locks, fs, "/graph/step-locks", hooks);
  running.Enter({"CICC", 0, kAdmissionGiB, 2 * kAdmissionGiB});  // no cicc known: its guess of 1 GiB
  int pauses = 0;
  MemoryAdmission waiting(locks, fs, "/graph/step-locks", HooksOf(11, [&] {
                            if (++pauses == 2) {
                              running.Watch(1);
                              running.Watch(1);
                            }
                            if (pauses > 10) FAIL("it waited on");
                          }));
  // 1 GiB guessed beside 1 GiB running: it fits in 2 GiB only once the
  // running cicc has fallen from 480 MiB, which it then expects a quarter over.
  CHECK(waiting.Enter({"CICC", 0, kAdmissionGiB + 1, 2 * kAdmissionGiB}) == 600 * 1024);
  CHECK(pauses == 2);
}

TEST_CASE("memory admission: a step whose program grows past what it expected holds what it holds") {
  testing::FakeFileSystem fs;
  SingleHolderLocks locks;
  AdmissionHooks hooks = HooksOf(10, [] {});
  hooks.resident_kib = [](int64_t) { return int64_t{700 * 1024}; };
  MemoryAdmission running(locks, fs, "/graph/step-locks", hooks);
  running.Enter({"CUDAFE", 0, 512 * 1024, kAdmissionGiB});
  running.Watch(1);
  CHECK(LedgerIn(fs).entries.at(0).kib == 700 * 1024);
  // 512 MiB would fit beside the 512 it expected, not beside the 700 it holds.
  int pauses = 0;
  MemoryAdmission waiting(locks, fs, "/graph/step-locks", HooksOf(11, [&] {
                            if (++pauses == 3) running.Leave(700 * 1024);
                          }));
  waiting.Enter({"PTXAS", 0, 512 * 1024, kAdmissionGiB});
  CHECK(pauses == 3);
}

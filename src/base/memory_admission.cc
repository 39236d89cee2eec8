#include "src/base/memory_admission.h"

#include <time.h>
#include <unistd.h>

#include <algorithm>

#include "src/base/memory_ledger.h"
#include "src/base/proc_files.h"
#include "src/base/process.h"

namespace fastcuda {

namespace {

/// ResidentKib of `pid` and its descendants (ProcessAdmissionHooks).
int64_t TreeResidentKib(const FileSystem& fs, int64_t pid, int64_t page_kib) {
  const std::string proc = "/proc/" + std::to_string(pid);
  int64_t kib = ResidentKib(fs.Read(proc + "/statm"), page_kib);
  for (int64_t child : ChildPids(fs.Read(proc + "/task/" + std::to_string(pid) + "/children")))
    kib += TreeResidentKib(fs, child, page_kib);
  return kib;
}

}  // namespace

AdmissionHooks ProcessAdmissionHooks(const FileSystem& fs) {
  AdmissionHooks hooks;
  hooks.pid = [] { return static_cast<int64_t>(getpid()); };
  hooks.start_of = [&fs](int64_t pid) {
    return ProcessStart(fs.Read("/proc/" + std::to_string(pid) + "/stat"));
  };
  hooks.now_ms = [] {
    timespec now{};
    clock_gettime(CLOCK_MONOTONIC, &now);
    return static_cast<int64_t>(now.tv_sec) * 1000 + now.tv_nsec / 1000000;
  };
  hooks.sleep_ms = [](int64_t ms) {
    timespec wait{static_cast<time_t>(ms / 1000), static_cast<long>(ms % 1000) * 1000000};
    nanosleep(&wait, nullptr);  // a signal ends it early
    StopIfInterrupted();
  };
  hooks.resident_kib = [&fs, page_kib = sysconf(_SC_PAGESIZE) / 1024](int64_t pid) {
    return TreeResidentKib(fs, pid, page_kib);
  };
  return hooks;
}

MemoryAdmission::MemoryAdmission(LockFiles& locks, WritableFileSystem& fs, const std::string& lock_dir,
                                 AdmissionHooks hooks)
    : locks_(locks), fs_(fs), path_(lock_dir + "/" + kMemoryLedgerName), hooks_(std::move(hooks)) {}

MemoryAdmission::~MemoryAdmission() {
  try {
    Leave(0);
  } catch (...) {  // interrupted again: the next step drops the entry of this ended process
  }
}

bool MemoryAdmission::Update(const std::function<bool(MemoryLedger&)>& change) {
  if (!locks_.Lock(kMemoryLockName, LockKind::kExclusive)) return false;
  try {
    MemoryLedger ledger = ParseMemoryLedger(fs_.Read(path_).value_or(""));
    if (change(ledger)) fs_.Write(path_, FormatMemoryLedger(ledger));
  } catch (...) {
    locks_.Unlock(kMemoryLockName);
    throw;
  }
  locks_.Unlock(kMemoryLockName);
  return true;
}

int64_t MemoryAdmission::Enter(const MemoryRequest& request) {
  kind_ = request.kind;
  input_ = request.input;
  int64_t kib = request.guess;
  bool started = false;
  // Marks the step running where it may start, with what it expects now;
  // true where the ledger changed.
  auto try_start = [&](MemoryLedger& ledger) {
    auto own = std::find_if(ledger.entries.begin(), ledger.entries.end(),
                            [&](const LedgerEntry& entry) { return entry.ticket == ticket_; });
    // An entry lost with a damaged file: the step goes on rather than wait for nothing.
    if (own == ledger.entries.end()) return started = true;
    // What the ledger learned while the step waited: the first build's
    // guesses give way to the peaks of the steps that ended meanwhile.
    kib = ExpectedPeak(ledger, request);
    const bool revised = own->kib != kib;
    own->kib = kib;
    started = MayStart(ledger, ticket_, request.budget, hooks_.now_ms());
    if (started) own->running = true;
    return started || revised;
  };
  const bool queued = Update([&](MemoryLedger& ledger) {
    DropEnded(ledger, hooks_.start_of);
    kib = ExpectedPeak(ledger, request);
    const int64_t pid = hooks_.pid();
    ticket_ = JoinQueue(ledger, pid, hooks_.start_of(pid), kib, hooks_.now_ms()).ticket;
    try_start(ledger);
    return true;
  });
  if (!queued) return kib;  // a file system without locks: the step goes on without the ledger
  // Short pauses first: a light step's turn often comes within milliseconds.
  for (int64_t pause = 2; !started; pause = std::min<int64_t>(pause * 2, 50)) {
    hooks_.sleep_ms(pause);
    Update([&](MemoryLedger& ledger) {
      const size_t before = ledger.entries.size();
      DropEnded(ledger, hooks_.start_of);
      return try_start(ledger) || ledger.entries.size() != before;
    });
  }
  expected_ = held_ = kib;
  return kib;
}

void MemoryAdmission::Watch(int64_t child) {
  // Nothing resident: the program has ended (a zombie's statm is zeros),
  // which is no fall its kind's steps make while they run.
  const int64_t resident = hooks_.resident_kib(child);
  if (resident == 0) return;
  const bool fell_before = trace_.Fell();
  trace_.Sample(resident);
  if (ticket_ == 0 || (!trace_.Fell() && trace_.high <= held_)) return;
  // Until three steps of its kind have fallen, each sample after its fall
  // asks the ledger whether they have meanwhile; after that, it writes
  // only what changes much: a hold that grows, or one that shrinks by an
  // eighth.
  int64_t held = HeldBack(learned_, trace_, expected_);
  if (fell_before && learned_.fell >= 3 && held <= held_ && held > held_ - held_ / 8) return;
  Update([&](MemoryLedger& ledger) {
    KindPeaks& kind = ledger.peaks[kind_];
    // A step that fell has passed its high: the steps that wait expect
    // theirs from it as from one that ended (a first build's ciccs would
    // otherwise keep their guess until the first of them ends).
    const bool taught = trace_.Fell() && !fell_before && trace_.before_fall > kind.highest;
    if (taught) kind.highest = trace_.before_fall;
    learned_ = kind;
    held = HeldBack(learned_, trace_, expected_);
    if (held == held_ && !taught) return false;
    held_ = held;
    return Hold(ledger, ticket_, held) || taught;
  });
}

void MemoryAdmission::Leave(int64_t peak_kib) {
  if (ticket_ == 0) return;
  const int64_t ticket = ticket_;
  ticket_ = 0;
  Update([&](MemoryLedger& ledger) {
    LeaveLedger(ledger, ticket, kind_, peak_kib, input_, trace_);
    return true;
  });
}

}  // namespace fastcuda

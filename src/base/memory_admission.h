// A step's way into its graph's memory budget: it waits in the memory
// ledger (memory_ledger.h) until the running steps leave room for the peak
// it is expected to reach, holds less of the budget once its program has
// fallen from its high as its kind's steps were seen to, and on its way
// out records the peak it reached.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>

#include "src/base/file_system.h"
#include "src/base/memory_ledger.h"
#include "src/base/step_gate.h"

namespace fastcuda {

/// What an admission needs of the process and the clock, apart from files:
/// fakes in tests.
struct AdmissionHooks {
  std::function<int64_t()> pid;                  ///< this step's process id
  std::function<int64_t(int64_t)> start_of;      ///< when a process started (ProcessStart), or -1 for none
  std::function<int64_t()> now_ms;               ///< a clock all steps of the machine read alike
  std::function<void(int64_t)> sleep_ms;         ///< waits so long, or throws Interrupted on a signal
  std::function<int64_t(int64_t)> resident_kib;  ///< what a process and its descendants hold now
};

/// The hooks of this process: getpid, ProcessStart of `/proc` read through
/// `fs`, CLOCK_MONOTONIC, a sleep that a signal ends (StopIfInterrupted),
/// and the ResidentKib of a process and of its descendants, found through
/// each one's main thread's children (a compiler driver's: cc1plus, as).
AdmissionHooks ProcessAdmissionHooks(const FileSystem& fs);

/// The ledger's file in a graph's lock directory, and its lock's name there.
inline constexpr const char* kMemoryLedgerName = "memory-ledger";
inline constexpr const char* kMemoryLockName = "memory";

/// One step's admission. Leaves the ledger when it ends, whatever ends it.
class MemoryAdmission {
 public:
  /// `lock_dir`: the graph's lock directory, whose `locks` and files through
  /// `fs` hold the ledger.
  MemoryAdmission(LockFiles& locks, WritableFileSystem& fs, const std::string& lock_dir,
                  AdmissionHooks hooks);
  ~MemoryAdmission();
  MemoryAdmission(const MemoryAdmission&) = delete;
  MemoryAdmission& operator=(const MemoryAdmission&) = delete;

  /// Waits until the step may start (MayStart) with the peak it is
  /// expected to reach (ExpectedPeak), which it returns.
  int64_t Enter(const MemoryRequest& request);
  /// Samples what the step's program, process `child`, holds now
  /// (AdmissionHooks::resident_kib), as it runs: the step holds back what
  /// HeldBack says (less once the program has fallen from its high, more
  /// where it grows past what it expected), a fall makes its kind's
  /// highest peak at least that high, and the ledger learns from its
  /// samples when it leaves.
  void Watch(int64_t child);
  /// The step's program has ended, having reached `peak_kib` (0: unknown).
  void Leave(int64_t peak_kib);

 private:
  /// Runs `change` on the ledger under its lock, and writes it back where
  /// `change` returns true. False where the lock cannot be taken.
  bool Update(const std::function<bool(MemoryLedger&)>& change);

  LockFiles& locks_;
  WritableFileSystem& fs_;
  std::string path_;
  AdmissionHooks hooks_;
  std::string kind_;
  int64_t input_ = 0;     ///< MemoryRequest::input
  int64_t ticket_ = 0;    ///< 0: not in the ledger
  int64_t expected_ = 0;  ///< the peak it started with (ExpectedPeak)
  int64_t held_ = 0;      ///< what it holds back of the budget now
  ResidentTrace trace_;
  KindPeaks learned_;  ///< what the ledger knew of its kind when last read
};

}  // namespace fastcuda

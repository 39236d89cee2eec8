// The steps of one graph run side by side, but a step that ran out of
// memory beside the others runs again alone: a readers-writer lock on two
// files that every step of the graph takes.
#pragma once

#include <map>
#include <string>

#include "src/base/directory_lock.h"

namespace fastcuda {

/// Advisory locks on named files as flock(2) takes them: each holder (a
/// process, or in tests a thread) holds a name at most once, a shared lock
/// waits only for an exclusive holder, and waiting confers no place in a
/// queue (a new shared lock passes an exclusive one that waits). An
/// interface, so that tests can run StepGate's protocol on a fake.
class LockFiles {
 public:
  virtual ~LockFiles() = default;
  /// Blocks until this holder has `name` as `kind`; false where the lock
  /// cannot be taken at all (a file system without locks): the caller then
  /// goes on without it.
  virtual bool Lock(const std::string& name, LockKind kind) = 0;
  virtual void Unlock(const std::string& name) = 0;
};

/// flock(2) on files of one directory (made where missing), close-on-exec:
/// no program a step runs, nor a daemon it starts, holds them.
/// Throws Interrupted when this process receives a signal while it waits.
class DirectoryLockFiles : public LockFiles {
 public:
  explicit DirectoryLockFiles(std::string dir) : dir_(std::move(dir)) {}
  ~DirectoryLockFiles() override;
  DirectoryLockFiles(const DirectoryLockFiles&) = delete;
  DirectoryLockFiles& operator=(const DirectoryLockFiles&) = delete;
  bool Lock(const std::string& name, LockKind kind) override;
  void Unlock(const std::string& name) override;

 private:
  std::string dir_;
  std::map<std::string, int> fds_;
};

/// One step's way through the gate. Two locks: `running`, held shared by
/// every step while its program runs and exclusive by one that runs alone;
/// and `gate`, which a step passes shared on its way in and which one that
/// must run alone holds exclusive from before it waits for `running`, so
/// that steps that arrive meanwhile wait at the gate instead of starving it
/// (flock itself prefers no writer). No deadlock: a step holds `gate`
/// shared only while it takes `running` shared, which waits only for a
/// holder of `running` exclusive, who holds `gate` exclusive and so cannot
/// coexist with it; a step that must run alone first leaves `running` (a
/// shared lock is never upgraded in place: two such steps would wait for
/// each other), and the holders of `running` it then waits for are programs
/// that run, not steps that wait. Ninja keeps its parallelism: steps that
/// wait at the gate hold job slots but no memory.
class StepGate {
 public:
  /// `locks`: nullptr for a graph without a lock directory (no gate).
  explicit StepGate(LockFiles* locks) : locks_(locks) {}
  ~StepGate() { Leave(); }
  StepGate(const StepGate&) = delete;
  StepGate& operator=(const StepGate&) = delete;

  /// Before the program runs beside the other steps: waits while a step runs alone.
  void EnterBeside();
  /// Before the program runs alone: leaves what this step holds, keeps new
  /// steps out, and waits until the running ones have ended.
  void EnterAlone();
  /// After the program ran: lets the others in.
  void Leave();

  static constexpr const char* kGate = "gate";
  static constexpr const char* kRunning = "running";

 private:
  LockFiles* locks_;
  bool holds_gate_ = false;
  bool holds_running_ = false;
};

}  // namespace fastcuda

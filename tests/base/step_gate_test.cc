#include <doctest/doctest.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <filesystem>
#include <future>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "src/base/step_gate.h"

using namespace fastcuda;

namespace {

/// flock(2)'s rules between holders (here threads), on no file: shared
/// holders coexist, an exclusive one is alone, and a waiting exclusive lock
/// does not hold back a new shared one (flock prefers no writer). Says who
/// waits for what, so that a test can wait for a thread to block.
class FakeLockTable {
 public:
  void Lock(int holder, const std::string& name, LockKind kind) {
    std::unique_lock<std::mutex> lock(mutex_);
    waiting_.insert({holder, name});
    changed_.notify_all();
    changed_.wait(lock, [&] {
      const Holders& now = held_[name];
      if (kind == LockKind::kShared) return now.exclusive == 0;
      return now.exclusive == 0 && now.shared.empty();
    });
    waiting_.erase({holder, name});
    if (kind == LockKind::kShared) held_[name].shared.insert(holder);
    else held_[name].exclusive = holder;
    changed_.notify_all();
  }
  void Unlock(int holder, const std::string& name) {
    std::lock_guard<std::mutex> lock(mutex_);
    Holders& now = held_[name];
    now.shared.erase(holder);
    if (now.exclusive == holder) now.exclusive = 0;
    changed_.notify_all();
  }
  /// Blocks until `holder` waits for `name`.
  void AwaitWaiting(int holder, const std::string& name) {
    std::unique_lock<std::mutex> lock(mutex_);
    changed_.wait(lock, [&] { return waiting_.count({holder, name}) > 0; });
  }

 private:
  struct Holders {
    std::set<int> shared;
    int exclusive = 0;
  };
  std::mutex mutex_;
  std::condition_variable changed_;
  std::map<std::string, Holders> held_;
  std::set<std::pair<int, std::string>> waiting_;
};

/// One holder's view of a FakeLockTable.
class FakeLockFiles : public LockFiles {
 public:
  FakeLockFiles(FakeLockTable& table, int holder) : table_(table), holder_(holder) {}
  bool Lock(const std::string& name, LockKind kind) override {
    table_.Lock(holder_, name, kind);
    return true;
  }
  void Unlock(const std::string& name) override { table_.Unlock(holder_, name); }

 private:
  FakeLockTable& table_;
  int holder_;
};

/// What the steps of a test did, in order.
class Events {
 public:
  void Add(const std::string& event) {
    std::lock_guard<std::mutex> lock(mutex_);
    events_.push_back(event);
  }
  std::vector<std::string> All() {
    std::lock_guard<std::mutex> lock(mutex_);
    return events_;
  }

 private:
  std::mutex mutex_;
  std::vector<std::string> events_;
};

}  // namespace

TEST_CASE("step gate: a step that must run alone waits for the running ones and keeps new ones out") {
  FakeLockTable table;
  FakeLockFiles running_step(table, 1), alone_step(table, 2), new_step(table, 3);
  Events events;
  StepGate first(&running_step);
  first.EnterBeside();
  std::thread alone([&] {
    StepGate gate(&alone_step);
    gate.EnterAlone();
    events.Add("alone runs");
    events.Add("alone ends");  // before it leaves: the new step may run the moment it has
    gate.Leave();
  });
  table.AwaitWaiting(2, StepGate::kRunning);  // holding the gate
  std::thread later([&] {
    StepGate gate(&new_step);
    gate.EnterBeside();
    events.Add("new runs");
  });
  // flock alone would let the new step's shared lock pass the waiting exclusive one.
  table.AwaitWaiting(3, StepGate::kGate);
  CHECK(events.All().empty());
  events.Add("first ends");
  first.Leave();
  alone.join();
  later.join();
  CHECK(events.All() == std::vector<std::string>{"first ends", "alone runs", "alone ends", "new runs"});
}

TEST_CASE("step gate: two steps that must run alone, both running beside before, run one after the other") {
  FakeLockTable table;
  FakeLockFiles one(table, 1), two(table, 2);
  Events events;
  StepGate gate_one(&one), gate_two(&two);
  gate_one.EnterBeside();
  gate_two.EnterBeside();
  // Neither upgrades its shared lock in place: each would wait for the other.
  auto run_alone = [&](StepGate& gate, const std::string& name) {
    return std::async(std::launch::async, [&gate, &events, name] {
      gate.EnterAlone();
      events.Add(name + " runs");
      events.Add(name + " ends");
      gate.Leave();
    });
  };
  std::future<void> first = run_alone(gate_one, "one"), second = run_alone(gate_two, "two");
  REQUIRE(first.wait_for(std::chrono::seconds(10)) == std::future_status::ready);
  REQUIRE(second.wait_for(std::chrono::seconds(10)) == std::future_status::ready);
  std::vector<std::string> order = events.All();
  REQUIRE(order.size() == 4);
  CHECK(order[0].substr(0, 3) == order[1].substr(0, 3));  // never interleaved
  CHECK(order[2].substr(0, 3) == order[3].substr(0, 3));
}

TEST_CASE("step gate: without locks (no lock directory) every step just runs") {
  StepGate gate(nullptr);
  gate.EnterBeside();
  gate.EnterAlone();
  gate.Leave();
}

TEST_CASE("step gate on flock: a step alone waits until the one running beside has left") {
  const std::string dir =
      std::filesystem::temp_directory_path() / ("fastcuda-gate-test-" + std::to_string(getpid()));
  std::filesystem::remove_all(dir);
  {
    DirectoryLockFiles beside_locks(dir), alone_locks(dir);
    StepGate beside(&beside_locks);
    beside.EnterBeside();
    std::atomic<bool> alone_ran{false};
    std::thread alone([&] {
      StepGate gate(&alone_locks);
      gate.EnterAlone();
      alone_ran = true;
    });
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    CHECK_FALSE(alone_ran);
    beside.Leave();
    alone.join();
    CHECK(alone_ran);
    CHECK(std::filesystem::is_regular_file(dir + "/" + StepGate::kGate));
    CHECK(std::filesystem::is_regular_file(dir + "/" + StepGate::kRunning));
  }
  std::filesystem::remove_all(dir);
}

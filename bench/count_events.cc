// Counts, over a running process and every process it starts from then on,
// the CPU time the kernel charges (task clock) and, where the machine's
// performance counters reach this process, the user-space instructions and
// cycles. Instructions measure the work itself: unlike CPU time, they do not
// grow when a core is shared or its clock drops as the machine gets busier
// (bench/RESULTS.md, "CPU time and how busy the machine is"), so two builds
// that keep different numbers of cores busy can be compared on them.
//
// Usage: count_events PID OUT
// Opens the counters on PID (a shell, say, about to start a build), prints
// "counting" once they count, and reads its input until it ends; then writes
// one line to OUT: "task_clock_ms instructions cycles", "-" for a counter the
// machine lacks (a virtual machine without a virtual PMU has none). Only
// processes PID starts after "counting" are counted, and a child's counts
// join PID's as the child exits: read OUT once they all have.
// bench/lib.sh builds it (BENCH_EVENTS=1) and wraps it: count_start, count_stop.
#include <linux/perf_event.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>

namespace {

/// A counter on `pid` and every process it starts from now on; -1 where the
/// machine cannot count `config`.
int OpenInheritedCounter(pid_t pid, uint32_t type, uint64_t config) {
  perf_event_attr attr;
  std::memset(&attr, 0, sizeof attr);
  attr.size = sizeof attr;
  attr.type = type;
  attr.config = config;
  attr.inherit = 1;  // children's counts are added to this one as they exit
  attr.exclude_kernel = 1;
  attr.exclude_hv = 1;
  return static_cast<int>(syscall(SYS_perf_event_open, &attr, pid, -1, -1, 0));
}

/// The counter's value as text, "-" when it could not be opened.
std::string ValueOf(int counter, double scale) {
  uint64_t value = 0;
  if (counter < 0 || read(counter, &value, sizeof value) != sizeof value) return "-";
  return std::to_string(static_cast<uint64_t>(static_cast<double>(value) * scale));
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: count_events PID OUT\n");
    return 2;
  }
  const pid_t counted = static_cast<pid_t>(std::stol(argv[1]));
  const int task_clock = OpenInheritedCounter(counted, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK);
  const int instructions = OpenInheritedCounter(counted, PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS);
  const int cycles = OpenInheritedCounter(counted, PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES);
  if (task_clock < 0) {
    std::perror("count_events: perf_event_open");
    return 1;
  }
  std::puts("counting");
  std::fflush(stdout);
  char buffer[256];
  while (read(STDIN_FILENO, buffer, sizeof buffer) > 0) {
  }
  const std::string line =
      ValueOf(task_clock, 1e-6) + " " + ValueOf(instructions, 1) + " " + ValueOf(cycles, 1) + "\n";
  FILE* out = std::fopen(argv[2], "w");
  if (!out || std::fputs(line.c_str(), out) < 0 || std::fclose(out) != 0) return 1;
  return 0;
}

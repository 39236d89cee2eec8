// Running programs: the only place FastCuda spawns processes.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace fastcuda {

/// What to run and how.
struct ProcessSpec {
  std::vector<std::string> argv;               ///< argv[0] is looked up on PATH
  std::string cwd;                             ///< empty: the current directory
  std::map<std::string, std::string> env_set;  ///< added to (or replacing in) the environment
  bool capture_output = false;                 ///< collect stdout and stderr instead of inheriting
  /// With capture_output: stderr goes into stdout_text, in the order written.
  bool merge_streams = false;
  /// Run in a process group of its own, so that the terminal's signals reach
  /// only this process, which forwards those it does not ignore (Ninja would
  /// otherwise stop on a hangup that `nohup` told FastCuda to ignore).
  bool own_process_group = false;
  /// A descriptor the child keeps open (a lock that must outlive this
  /// process while the child runs); its number is in FASTCUDA_INHERITED_FD.
  int inherited_fd = -1;
  /// Non-empty: the child's TMPDIR, made empty before it starts and removed
  /// with what it left there after it ends.
  std::string temp_dir{};
  /// With capture_output: what the child writes to stdout goes here as it
  /// comes, instead of into stdout_text.
  std::function<void(std::string_view)> stream_stdout{};
  /// With capture_output: called with the child's process id every
  /// kProcessTickMs or so while it runs, so that what follows its output
  /// moves between its lines too, and what watches it sees it.
  std::function<void(int64_t child)> tick{};
};

/// How often ProcessSpec::tick is called.
inline constexpr int kProcessTickMs = 200;

/// How a process ended.
struct ProcessResult {
  int exit_code = 0;        ///< the exit status, or 128 + signal number
  int signal = 0;           ///< the signal that killed it; 0 when it exited
  std::string stdout_text;  ///< when captured
  std::string stderr_text;  ///< when captured
  long max_rss_kb = 0;      ///< peak resident memory, from wait4
  int64_t cpu_ms = 0;       ///< user and system CPU time, from wait4
};

/// Runs a process to completion. The child gets SIGTERM when the thread
/// that started it dies, so that nothing a killed FastCuda started goes on
/// writing outputs. Throws std::runtime_error if it cannot be started.
ProcessResult RunProcess(const ProcessSpec& spec);

/// This process gets SIGTERM when its parent dies: a step whose Ninja was
/// killed stops instead of writing its outputs later.
void DieWithParent();

/// Forwards SIGINT, SIGTERM and SIGHUP to the running child even where this
/// process inherited them as ignored, as Ninja, which sets its own handlers,
/// stops on them however it was started (a background job of a script).
/// Only for what stands in for Ninja: the launcher keeps nvcc's behaviour.
void TakeSignalsAsNinjaDoes();

/// The last of SIGINT, SIGTERM and SIGHUP this process received and
/// forwarded to a child, or 0.
int ReceivedSignal();

/// Thrown where FastCuda stops on a signal it received (ReceivedSignal)
/// instead of going on to its next process: not a std::exception, so that
/// no fallback that catches those runs nvcc after an interrupt.
struct Interrupted {
  int signal;  ///< the signal received
};

/// Throws Interrupted if this process received a signal.
void StopIfInterrupted();

/// Closes the descriptor a parent FastCuda passed down (ProcessSpec::
/// inherited_fd), so that no program this process starts (a daemon such as
/// sccache's server) holds the parent's lock.
void CloseInheritedDescriptor();

/// Starts the programs a command runs, so that tests can run the command
/// with a fake.
class CommandRunner {
 public:
  virtual ~CommandRunner() = default;
  virtual ProcessResult Run(const ProcessSpec& spec) = 0;
};

/// RunProcess.
class RealCommandRunner : public CommandRunner {
 public:
  ProcessResult Run(const ProcessSpec& spec) override { return RunProcess(spec); }
};

/// How a process ended, in words: "exited with status 2", or "killed by
/// signal 11 (Segmentation fault)".
std::string DescribeEnd(const ProcessResult& result);

/// Replaces the current process with argv (for the fallback to plain nvcc).
[[noreturn]] void ExecProcess(const std::vector<std::string>& argv);

/// `program` found on `search_path` (a PATH value), or `program` itself when
/// it names a path or is not found. A candidate that resolves to the file
/// `other_than` names (fastcuda itself, linked as the program) is passed over.
std::string FindProgram(const std::string& program, const std::string& search_path,
                        const std::string& other_than = "");

/// The first dotted number `PROGRAM --version` prints ("1.13.2"), run
/// through `runner`, or "" if it cannot be run; asked once per program and
/// process, whichever runner asks again.
std::string ProgramVersion(CommandRunner& runner, const std::string& program);

/// The environment of this process as a map: read once, at the CLI edge
/// (CommandIo), and passed down.
std::map<std::string, std::string> CurrentEnvironment();

/// The absolute path of this executable.
std::string SelfExecutable();

/// FastCuda's remote-execution client, `fastcuda-remote` beside this
/// executable (built and installed where its Python modules were found),
/// or "" where this FastCuda has none.
std::string RemoteClientExecutable();

}  // namespace fastcuda

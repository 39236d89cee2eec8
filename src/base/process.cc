#include "src/base/process.h"

#include <fcntl.h>
#include <poll.h>
#include <re2/re2.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstring>
#include <filesystem>
#include <mutex>
#include <stdexcept>
#include <string_view>

extern char** environ;

namespace fastcuda {
namespace {

/// The child RunProcess waits for: SIGINT, SIGTERM and SIGHUP go to it, so
/// that stopping fastcuda stops Ninja (which stops every step) instead of
/// leaving it running; fastcuda then returns once the child has cleaned up.
std::atomic<pid_t> running_child{0};
std::atomic<int> received_signal{0};

constexpr const char* kInheritedFdVariable = "FASTCUDA_INHERITED_FD";

void ForwardSignal(int signal) {
  received_signal = signal;
  pid_t child = running_child.load();
  if (child > 0) kill(child, signal);
}

/// Has SIGINT, SIGTERM and SIGHUP forwarded; `even_ignored`: also those
/// this process inherited as ignored.
void ForwardSignals(bool even_ignored) {
  struct sigaction action {};
  action.sa_handler = ForwardSignal;
  sigemptyset(&action.sa_mask);
  for (int signal : {SIGINT, SIGTERM, SIGHUP}) {
    struct sigaction current {};
    sigaction(signal, nullptr, &current);
    if (even_ignored || current.sa_handler != SIG_IGN) sigaction(signal, &action, nullptr);
  }
}

/// A signal inherited as ignored (`nohup`, a background job of a script)
/// stays ignored, as it does for nvcc (unless TakeSignalsAsNinjaDoes ran).
void InstallSignalForwarding() {
  static const bool installed = [] {
    ForwardSignals(/*even_ignored=*/false);
    return true;
  }();
  (void)installed;
}

std::vector<char*> CStrings(std::vector<std::string>& strings) {
  std::vector<char*> pointers;
  for (std::string& s : strings) pointers.push_back(s.data());
  pointers.push_back(nullptr);
  return pointers;
}

std::vector<std::string> EnvironmentStrings(const std::map<std::string, std::string>& env_set) {
  std::map<std::string, std::string> env = CurrentEnvironment();
  for (const auto& [name, value] : env_set) env[name] = value;
  std::vector<std::string> strings;
  for (const auto& [name, value] : env) strings.push_back(name + "=" + value);
  return strings;
}

/// Reads both pipes until the child closes them (stdout to
/// `spec.stream_stdout` where it is set), calling `spec.tick` with `child`
/// between.
void Drain(int out_fd, int err_fd, const ProcessSpec& spec, pid_t child, ProcessResult& result) {
  pollfd fds[2] = {{out_fd, POLLIN, 0}, {err_fd, POLLIN, 0}};
  std::string* sinks[2] = {&result.stdout_text, &result.stderr_text};
  int open_count = 2;
  char buffer[65536];
  while (open_count > 0) {
    if (spec.tick) spec.tick(child);
    if (poll(fds, 2, spec.tick ? kProcessTickMs : -1) < 0) {
      if (errno == EINTR) continue;
      throw std::runtime_error(std::string("poll: ") + std::strerror(errno));
    }
    for (int i = 0; i < 2; ++i) {
      if (fds[i].fd < 0 || !(fds[i].revents & (POLLIN | POLLHUP | POLLERR))) continue;
      ssize_t n = read(fds[i].fd, buffer, sizeof buffer);
      if (n > 0 && i == 0 && spec.stream_stdout) {
        spec.stream_stdout(std::string_view(buffer, n));
      } else if (n > 0) {
        sinks[i]->append(buffer, n);
      } else if (n == 0 || errno != EINTR) {
        close(fds[i].fd);
        fds[i].fd = -1;
        --open_count;
      }
    }
  }
}

/// The spawned program's path: argv[0] searched on the PATH the child gets.
std::string Resolve(const std::string& program, const std::map<std::string, std::string>& env_set) {
  auto path = env_set.find("PATH");
  const char* inherited = std::getenv("PATH");
  return FindProgram(program, path != env_set.end() ? path->second : inherited ? inherited : "");
}

/// Why a child could not exec: errno, and whether it was its chdir (the
/// parent's message then names the directory, which nvcc's own message
/// would not).
struct ChildFailure {
  int error = 0;
  bool in_cwd = false;
};

/// Reports errno to the parent and ends the child that could not exec.
[[noreturn]] void ReportFailure(int report_fd, bool in_cwd = false) {
  ChildFailure failure{errno, in_cwd};
  ssize_t ignored = write(report_fd, &failure, sizeof failure);
  (void)ignored;
  _exit(127);
}

/// The child's TMPDIR (ProcessSpec::temp_dir), made empty of what a killed
/// run left, removed with what the child leaves when this object goes.
class ChildTempDir {
 public:
  explicit ChildTempDir(std::string path) : path_(std::move(path)) {
    if (path_.empty()) return;
    Remove();
    std::filesystem::create_directories(path_);
  }
  ~ChildTempDir() { Remove(); }
  ChildTempDir(const ChildTempDir&) = delete;
  ChildTempDir& operator=(const ChildTempDir&) = delete;

 private:
  void Remove() {
    std::error_code ignored;
    if (!path_.empty()) std::filesystem::remove_all(path_, ignored);
  }
  std::string path_;
};

/// What the child does between fork and exec: only async-signal-safe calls.
/// A failure is reported as errno through `report_fd`, which exec closes.
[[noreturn]] void ExecChild(const ProcessSpec& spec, pid_t parent, char* const* argv, char* const* env,
                            int out_fd, int err_fd, int report_fd) {
  auto fail = [report_fd] { ReportFailure(report_fd); };
  if (prctl(PR_SET_PDEATHSIG, SIGTERM) != 0) fail();
  if (getppid() != parent) _exit(128 + SIGTERM);  // the parent died before prctl
  if (spec.own_process_group && setpgid(0, 0) != 0) fail();
  if (out_fd >= 0 && (dup2(out_fd, 1) < 0 || dup2(spec.merge_streams ? out_fd : err_fd, 2) < 0)) fail();
  if (spec.inherited_fd >= 0 && fcntl(spec.inherited_fd, F_SETFD, 0) != 0) fail();
  if (!spec.cwd.empty() && chdir(spec.cwd.c_str()) != 0) ReportFailure(report_fd, /*in_cwd=*/true);
  execve(argv[0], argv, env);
  ReportFailure(report_fd);
}

}  // namespace

void DieWithParent() {
  pid_t parent = getppid();
  prctl(PR_SET_PDEATHSIG, SIGTERM);
  if (getppid() != parent) raise(SIGTERM);
}

void TakeSignalsAsNinjaDoes() { ForwardSignals(/*even_ignored=*/true); }

int ReceivedSignal() { return received_signal.load(); }

void StopIfInterrupted() {
  if (int signal = ReceivedSignal()) throw Interrupted{signal};
}

void CloseInheritedDescriptor() {
  const char* fd = std::getenv(kInheritedFdVariable);
  if (!fd) return;
  close(std::atoi(fd));
  unsetenv(kInheritedFdVariable);
}

ProcessResult RunProcess(const ProcessSpec& spec) {
  std::vector<std::string> argv = spec.argv;
  argv[0] = Resolve(argv[0], spec.env_set);
  std::map<std::string, std::string> env_set = spec.env_set;
  if (spec.inherited_fd >= 0) env_set[kInheritedFdVariable] = std::to_string(spec.inherited_fd);
  if (!spec.temp_dir.empty()) env_set["TMPDIR"] = spec.temp_dir;
  ChildTempDir temp_dir(spec.temp_dir);
  std::vector<std::string> env = EnvironmentStrings(env_set);
  std::vector<char*> c_argv = CStrings(argv);
  std::vector<char*> c_env = CStrings(env);

  int out_pipe[2] = {-1, -1}, err_pipe[2] = {-1, -1}, report[2] = {-1, -1};
  auto close_all = [&] {
    for (int fd : {out_pipe[0], out_pipe[1], err_pipe[0], err_pipe[1], report[0], report[1]}) {
      if (fd >= 0) close(fd);
    }
  };
  if ((spec.capture_output && (pipe2(out_pipe, O_CLOEXEC) != 0 || pipe2(err_pipe, O_CLOEXEC) != 0)) ||
      pipe2(report, O_CLOEXEC) != 0) {
    int error = errno;
    close_all();
    throw std::runtime_error(std::string("pipe: ") + std::strerror(error));
  }

  InstallSignalForwarding();
  pid_t parent = getpid();
  pid_t pid = fork();
  if (pid < 0) {
    int error = errno;
    close_all();
    throw std::runtime_error("cannot run " + spec.argv[0] + ": " + std::strerror(error));
  }
  if (pid == 0) ExecChild(spec, parent, c_argv.data(), c_env.data(), out_pipe[1], err_pipe[1], report[1]);
  running_child = pid;
  close(report[1]);
  report[1] = -1;
  ChildFailure failure;
  ssize_t reported;
  while ((reported = read(report[0], &failure, sizeof failure)) < 0 && errno == EINTR) {
  }
  if (reported > 0) {
    waitpid(pid, nullptr, 0);
    running_child = 0;
    close_all();
    std::string where = failure.in_cwd ? " in " + spec.cwd : "";
    throw std::runtime_error("cannot run " + spec.argv[0] + where + ": " + std::strerror(failure.error));
  }
  close(report[0]);
  report[0] = -1;

  ProcessResult result;
  if (spec.capture_output) {
    close(out_pipe[1]);
    close(err_pipe[1]);
    Drain(out_pipe[0], err_pipe[0], spec, pid, result);
  }
  int status = 0;
  rusage usage{};
  while (wait4(pid, &status, 0, &usage) < 0) {
    if (errno != EINTR) throw std::runtime_error(std::string("wait4: ") + std::strerror(errno));
  }
  running_child = 0;
  result.max_rss_kb = usage.ru_maxrss;
  result.cpu_ms = (usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) * int64_t{1000} +
                  (usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1000;
  result.signal = WIFSIGNALED(status) ? WTERMSIG(status) : 0;
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + result.signal;
  return result;
}

std::string DescribeEnd(const ProcessResult& result) {
  if (result.signal == 0) return "exited with status " + std::to_string(result.exit_code);
  return "killed by signal " + std::to_string(result.signal) + " (" + strsignal(result.signal) + ")";
}

void ExecProcess(const std::vector<std::string>& argv) {
  std::vector<std::string> copy = argv;
  std::vector<char*> c_argv = CStrings(copy);
  execvp(c_argv[0], c_argv.data());
  throw std::runtime_error("cannot run " + argv[0] + ": " + std::strerror(errno));
}

std::string FindProgram(const std::string& program, const std::string& search_path,
                        const std::string& other_than) {
  if (program.find('/') != std::string::npos) return program;
  std::error_code error;
  const std::filesystem::path skipped =
      other_than.empty() ? std::filesystem::path() : std::filesystem::canonical(other_than, error);
  size_t start = 0;
  while (start <= search_path.size()) {
    size_t end = search_path.find(':', start);
    if (end == std::string::npos) end = search_path.size();
    std::string dir = search_path.substr(start, end - start);
    std::string candidate = (dir.empty() ? std::string(".") : dir) + "/" + program;
    start = end + 1;
    if (access(candidate.c_str(), X_OK) != 0) continue;
    if (skipped.empty() || std::filesystem::canonical(candidate, error) != skipped) return candidate;
  }
  return program;
}

std::string ProgramVersion(CommandRunner& runner, const std::string& program) {
  static std::mutex mutex;
  static std::map<std::string, std::string> versions;
  std::lock_guard<std::mutex> lock(mutex);
  auto known = versions.find(program);
  if (known != versions.end()) return known->second;
  static const RE2 dotted(R"re((\d+(?:\.\d+)+))re");
  std::string version;
  try {
    ProcessResult result = runner.Run({{program, "--version"}, "", {}, true});
    RE2::PartialMatch(result.stdout_text + result.stderr_text, dotted, &version);
  } catch (const std::runtime_error&) {  // not installed: no version
  }
  return versions[program] = version;
}

std::map<std::string, std::string> CurrentEnvironment() {
  std::map<std::string, std::string> env;
  for (char** entry = environ; *entry; ++entry) {
    std::string_view text(*entry);
    size_t eq = text.find('=');
    if (eq == std::string_view::npos) continue;
    env.emplace(std::string(text.substr(0, eq)), std::string(text.substr(eq + 1)));
  }
  return env;
}

std::string SelfExecutable() { return std::filesystem::read_symlink("/proc/self/exe").string(); }

std::string RemoteClientExecutable() {
  std::filesystem::path client = std::filesystem::path(SelfExecutable()).parent_path() / "fastcuda-remote";
  std::error_code error;
  return std::filesystem::exists(client, error) ? client.string() : "";
}

}  // namespace fastcuda

#include "src/process.h"

#include <fcntl.h>
#include <poll.h>
#include <re2/re2.h>
#include <spawn.h>
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

extern char** environ;

namespace fastcuda {
namespace {

/// The child RunProcess waits for: SIGINT, SIGTERM and SIGHUP go to it, so
/// that stopping fastcuda stops Ninja (which stops every step) instead of
/// leaving it running; fastcuda then returns once the child has cleaned up.
std::atomic<pid_t> running_child{0};

void ForwardSignal(int signal) {
  pid_t child = running_child.load();
  if (child > 0) kill(child, signal);
}

void InstallSignalForwarding() {
  static const bool installed = [] {
    struct sigaction action {};
    action.sa_handler = ForwardSignal;
    sigemptyset(&action.sa_mask);
    for (int signal : {SIGINT, SIGTERM, SIGHUP}) sigaction(signal, &action, nullptr);
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

/// Reads both pipes until the child closes them.
void Drain(int out_fd, int err_fd, ProcessResult& result) {
  pollfd fds[2] = {{out_fd, POLLIN, 0}, {err_fd, POLLIN, 0}};
  std::string* sinks[2] = {&result.stdout_text, &result.stderr_text};
  int open_count = 2;
  char buffer[65536];
  while (open_count > 0) {
    if (poll(fds, 2, -1) < 0) {
      if (errno == EINTR) continue;
      throw std::runtime_error(std::string("poll: ") + std::strerror(errno));
    }
    for (int i = 0; i < 2; ++i) {
      if (fds[i].fd < 0 || !(fds[i].revents & (POLLIN | POLLHUP | POLLERR))) continue;
      ssize_t n = read(fds[i].fd, buffer, sizeof buffer);
      if (n > 0) {
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
  return FindProgram(program, path != env_set.end() ? path->second : EnvironmentVariable("PATH"));
}

}  // namespace

ProcessResult RunProcess(const ProcessSpec& spec) {
  std::vector<std::string> argv = spec.argv;
  argv[0] = Resolve(argv[0], spec.env_set);
  std::vector<std::string> env = EnvironmentStrings(spec.env_set);
  std::vector<char*> c_argv = CStrings(argv);
  std::vector<char*> c_env = CStrings(env);

  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  int out_pipe[2] = {-1, -1}, err_pipe[2] = {-1, -1};
  if (spec.capture_output) {
    if (pipe2(out_pipe, O_CLOEXEC) != 0 || pipe2(err_pipe, O_CLOEXEC) != 0) {
      throw std::runtime_error(std::string("pipe: ") + std::strerror(errno));
    }
    posix_spawn_file_actions_adddup2(&actions, out_pipe[1], 1);
    posix_spawn_file_actions_adddup2(&actions, err_pipe[1], 2);
  }
  if (!spec.cwd.empty()) posix_spawn_file_actions_addchdir_np(&actions, spec.cwd.c_str());

  InstallSignalForwarding();
  pid_t pid = 0;
  int error = posix_spawn(&pid, c_argv[0], &actions, nullptr, c_argv.data(), c_env.data());
  posix_spawn_file_actions_destroy(&actions);
  if (error != 0) {
    for (int fd : {out_pipe[0], out_pipe[1], err_pipe[0], err_pipe[1]}) {
      if (fd >= 0) close(fd);
    }
    throw std::runtime_error("cannot run " + spec.argv[0] + ": " + std::strerror(error));
  }

  running_child = pid;
  ProcessResult result;
  if (spec.capture_output) {
    close(out_pipe[1]);
    close(err_pipe[1]);
    Drain(out_pipe[0], err_pipe[0], result);
  }
  int status = 0;
  rusage usage{};
  while (wait4(pid, &status, 0, &usage) < 0) {
    if (errno != EINTR) throw std::runtime_error(std::string("wait4: ") + std::strerror(errno));
  }
  running_child = 0;
  result.max_rss_kb = usage.ru_maxrss;
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

std::string FindProgram(const std::string& program, const std::string& search_path) {
  if (program.find('/') != std::string::npos) return program;
  size_t start = 0;
  while (start <= search_path.size()) {
    size_t end = search_path.find(':', start);
    if (end == std::string::npos) end = search_path.size();
    std::string dir = search_path.substr(start, end - start);
    std::string candidate = (dir.empty() ? std::string(".") : dir) + "/" + program;
    if (access(candidate.c_str(), X_OK) == 0) return candidate;
    start = end + 1;
  }
  return program;
}

std::string ProgramVersion(const std::string& program) {
  static std::mutex mutex;
  static std::map<std::string, std::string> versions;
  std::lock_guard<std::mutex> lock(mutex);
  auto known = versions.find(program);
  if (known != versions.end()) return known->second;
  static const RE2 dotted(R"re((\d+(?:\.\d+)+))re");
  std::string version;
  try {
    ProcessResult result = RunProcess({{program, "--version"}, "", {}, true});
    RE2::PartialMatch(result.stdout_text + result.stderr_text, dotted, &version);
  } catch (const std::runtime_error&) {  // not installed: no version
  }
  return versions[program] = version;
}

std::string EnvironmentVariable(const char* name, const std::string& fallback) {
  const char* value = std::getenv(name);
  return value && *value ? value : fallback;
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

std::string SelfExecutable() {
  return std::filesystem::read_symlink("/proc/self/exe").string();
}

}  // namespace fastcuda

// fastcuda-remote: the step wrapper of FastCuda's remote-execution client.
//
// FastCuda runs each cicc, ptxas and cudafe++ step as
// `fastcuda-remote --remote URL CMD ARGS...` where FASTCUDA_REMOTE is set,
// and each preprocessing and host compile as `fastcuda-remote --cache-only
// --remote URL CMD ARGS...`: run here, looked up in the action cache first
// and stored there after a run (the proxy's "steps cached here").
// This wrapper starts for every step, so it is a small native program (a
// Python one would start in 10-20 ms): it hands the step to a long-running
// proxy (fastcuda_remote_proxy.py, one per user and configuration, started
// here on demand) over a Unix socket. The proxy holds the gRPC channel, the
// digest cache and the action-cache and CAS logic, and writes the outputs
// beside their final names; this wrapper renames them into place, prints the
// step's output and exits with its status. So the step owns its outputs:
// stopped (Ctrl-C), it leaves none, and the proxy, seeing it gone, cancels
// the remote action.
//
// `fastcuda-remote --remote URL --start-proxy`, which `fastcuda build` runs
// first, starts the proxy in the background and returns at once.
//
// A standalone tool: it links nothing of FastCuda's and talks to the system
// directly. Where the remote cannot run the step, the step runs here
// (FASTCUDA_REMOTE_FALLBACK, on by default), or fails with one line naming
// the endpoint (off). Where the action cache misses it while a local core
// sits idle, the proxy says so and the step runs here too, its output
// captured: the proxy then stores its result for other builds (RunHere).
#include <fcntl.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <optional>
#include <string>
#include <thread>
#include <vector>

extern char** environ;

namespace {

/// Set by SIGINT, SIGTERM and SIGHUP: the step is being stopped.
volatile sig_atomic_t stopped = 0;

/// Records the signal; the blocking call it interrupts returns EINTR.
void Stop(int) { stopped = 1; }

/// The environment variable `name`, or `fallback` where it is unset.
std::string Env(const char* name, const std::string& fallback = "") {
  const char* value = getenv(name);
  return value ? value : fallback;
}

/// The non-empty lines of `text`.
std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> lines;
  size_t start = 0;
  while (start <= text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    if (end > start) lines.push_back(text.substr(start, end - start));
    start = end + 1;
  }
  return lines;
}

/// `text` split at every `separator`, empty parts kept.
std::vector<std::string> Split(const std::string& text, char separator) {
  std::vector<std::string> parts(1);
  for (char c : text) {
    if (c == separator) {
      parts.emplace_back();
    } else {
      parts.back() += c;
    }
  }
  return parts;
}

/// Writes all of `data` to `fd`.
bool SendAll(int fd, const std::string& data) {
  size_t done = 0;
  while (done < data.size()) {
    ssize_t n = send(fd, data.data() + done, data.size() - done, MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR && !stopped) continue;
    if (n <= 0) return false;
    done += size_t(n);
  }
  return true;
}

/// Reads exactly `size` bytes; nullopt at EOF, on an error or when stopped.
std::optional<std::string> ReceiveExactly(int fd, size_t size) {
  std::string data(size, '\0');
  size_t done = 0;
  while (done < size) {
    ssize_t n = recv(fd, data.data() + done, size - done, 0);
    if (n < 0 && errno == EINTR && !stopped) continue;
    if (n <= 0) return std::nullopt;
    done += size_t(n);
  }
  return data;
}

/// `data` after its length, 8 bytes big-endian: the proxy's framing.
std::string Frame(const std::string& data) {
  std::string framed(8, '\0');
  for (int i = 0; i < 8; ++i) framed[i] = char((uint64_t(data.size()) >> (56 - 8 * i)) & 0xff);
  return framed + data;
}

/// One frame's data.
std::optional<std::string> ReceiveFrame(int fd) {
  std::optional<std::string> length = ReceiveExactly(fd, 8);
  if (!length) return std::nullopt;
  uint64_t size = 0;
  for (unsigned char c : *length) size = size << 8 | c;
  return ReceiveExactly(fd, size_t(size));
}

/// The version of what this wrapper and its proxy say to each other: a
/// proxy of another version, left running by an earlier FastCuda, is
/// another proxy's (ConfigKey). 2: a miss run here ("here", and its result).
/// 3: steps cached here (--cache-only), with their depfile, work dir and
/// environment. 4: a result to store names the stats file and the step's
/// line there, for the store's own line.
constexpr const char* kProtocol = "4";

/// The variables that change what gcc or clang reads or writes, so a step
/// cached here is keyed on their values (the locale changes only the
/// language of its messages).
constexpr const char* kKeyedVariables[] = {"CPATH",
                                           "C_INCLUDE_PATH",
                                           "CPLUS_INCLUDE_PATH",
                                           "OBJC_INCLUDE_PATH",
                                           "GCC_EXEC_PREFIX",
                                           "COMPILER_PATH",
                                           "LIBRARY_PATH",
                                           "SOURCE_DATE_EPOCH",
                                           "GCC_COMPARE_DEBUG",
                                           "DEPENDENCIES_OUTPUT",
                                           "SUNPRO_DEPENDENCIES",
                                           "CCC_OVERRIDE_OPTIONS",
                                           "CLANG_CONFIG_FILE_SYSTEM_DIR",
                                           "CLANG_CONFIG_FILE_USER_DIR"};

/// NAME=value lines of the kKeyedVariables that the step's environment sets.
std::string KeyedEnvironment() {
  std::string lines;
  for (const char* name : kKeyedVariables) {
    if (const char* value = getenv(name)) lines += std::string(name) + "=" + value + "\n";
  }
  return lines;
}

/// Names the proxy of this configuration: the protocol, the endpoint, the
/// proxy and every FASTCUDA_REMOTE* setting but the stats file, which this
/// wrapper writes (FNV-1a).
std::string ConfigKey(const std::string& remote, const std::string& proxy) {
  std::vector<std::string> settings = {kProtocol, remote, FASTCUDA_REMOTE_PYTHON, proxy};
  for (char** entry = environ; *entry; ++entry) {
    if (strncmp(*entry, "FASTCUDA_REMOTE", 15) == 0 && strncmp(*entry, "FASTCUDA_REMOTE_STATS=", 22) != 0) {
      settings.push_back(*entry);
    }
  }
  std::sort(settings.begin() + 4, settings.end());
  uint64_t hash = 0xcbf29ce484222325ull;
  for (const std::string& setting : settings) {
    for (unsigned char c : setting + "\n") hash = (hash ^ c) * 0x100000001b3ull;
  }
  char text[17];
  snprintf(text, sizeof text, "%016llx", static_cast<unsigned long long>(hash));
  return text;
}

/// A connection to the proxy listening at `path`, or -1.
int Connect(const std::string& path) {
  int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_un address{};
  address.sun_family = AF_UNIX;
  if (fd < 0 || path.size() >= sizeof address.sun_path) {
    if (fd >= 0) close(fd);
    return -1;
  }
  memcpy(address.sun_path, path.c_str(), path.size() + 1);
  if (connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) == 0) return fd;
  close(fd);
  return -1;
}

/// Starts the proxy in a session of its own (Ctrl-C in the build does not
/// reach it), its output to PATH.log: it holds none of Ninja's pipes.
void StartProxy(const std::string& path, const std::string& proxy, const std::string& remote) {
  pid_t child = fork();
  if (child == 0) {
    setsid();
    if (fork() != 0) _exit(0);
    int null = open("/dev/null", O_RDONLY);
    int log = open((path + ".log").c_str(), O_WRONLY | O_CREAT | O_APPEND, 0600);
    if (null < 0 || log < 0) _exit(127);
    dup2(null, 0);
    dup2(log, 1);
    dup2(log, 2);
    for (int fd = 3; fd < 1024; ++fd) close(fd);
    const char* argv[] = {FASTCUDA_REMOTE_PYTHON, "-I", proxy.c_str(), path.c_str(), remote.c_str(), nullptr};
    execv(argv[0], const_cast<char**>(argv));
    _exit(127);
  }
  if (child > 0) waitpid(child, nullptr, 0);
}

/// A connection to this configuration's proxy, started where none runs
/// (by one step, under a lock; the others wait for it), or -1. A proxy that
/// did not start is not tried again for a while (PATH.failed): the steps
/// meanwhile fall back at once rather than each wait for it.
int ProxyConnection(const std::string& remote, const std::string& proxy, std::string& path) {
  std::string base = Env("XDG_RUNTIME_DIR", "/tmp");
  // A socket's path has room for 107 bytes: the name below takes 40.
  if (base.size() > 60) base = "/tmp";
  std::string dir = base + "/fastcuda-remote-" + std::to_string(getuid());
  mkdir(dir.c_str(), 0700);
  path = dir + "/" + ConfigKey(remote, proxy) + ".sock";
  int fd = Connect(path);
  if (fd >= 0) return fd;
  int lock = open((path + ".lock").c_str(), O_CREAT | O_RDWR | O_CLOEXEC, 0600);
  if (lock < 0 || flock(lock, LOCK_EX) != 0) {
    if (lock >= 0) close(lock);
    return -1;
  }
  fd = Connect(path);
  const std::string failed = path + ".failed";
  struct stat last {};
  bool failed_lately = stat(failed.c_str(), &last) == 0 && time(nullptr) - last.st_mtime < 30;
  if (fd < 0 && !failed_lately) {
    unlink(path.c_str());
    StartProxy(path, proxy, remote);
    // It imports gRPC and REAPI's bindings: well under a second.
    auto end = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while (fd < 0 && !stopped && std::chrono::steady_clock::now() < end) {
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
      fd = Connect(path);
    }
    if (fd < 0 && !stopped) close(open(failed.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600));
  }
  close(lock);
  return fd;
}

/// Runs the step here, after `message` (if any) on stderr.
int RunLocally(const std::vector<std::string>& command, const std::string& message) {
  if (!message.empty()) fprintf(stderr, "%s\n", message.c_str());
  fflush(stderr);
  std::vector<char*> argv;
  for (const std::string& word : command) argv.push_back(const_cast<char*>(word.c_str()));
  argv.push_back(nullptr);
  execvp(argv[0], argv.data());
  fprintf(stderr, "fastcuda-remote: %s: %s\n", argv[0], strerror(errno));
  return 127;
}

/// Writes `data` to `fd` whole.
void WriteAll(int fd, const std::string& data) {
  size_t done = 0;
  while (done < data.size()) {
    ssize_t n = write(fd, data.data() + done, data.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;
    done += size_t(n);
  }
}

/// Appends `line` to the file `path`.
void AppendLine(const std::string& path, const std::string& line) {
  int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (fd < 0) return;
  WriteAll(fd, line + "\n");
  close(fd);
}

/// Removes the temporaries the proxy wrote (tab-separated pairs).
void Discard(const std::vector<std::string>& moves) {
  for (const std::string& move : moves) unlink(move.substr(0, move.find('\t')).c_str());
}

/// The whole text of `file`, read from its start.
std::string ReadWhole(FILE* file) {
  std::string text;
  rewind(file);
  char buffer[65536];
  for (size_t n; (n = fread(buffer, 1, sizeof buffer, file)) > 0;) text.append(buffer, n);
  return text;
}

/// "PATH\tSIZE\tMTIME_NS\tINODE" of each output as the step left it, a line
/// each: the proxy stores only what is still that file.
std::string OutputsAsLeft(const std::vector<std::string>& outputs) {
  std::string lines;
  for (const std::string& output : outputs) {
    struct stat st {};
    if (stat(output.c_str(), &st) != 0) return "";
    long long mtime_ns = (long long)st.st_mtim.tv_sec * 1000000000LL + st.st_mtim.tv_nsec;
    lines += output + '\t' + std::to_string((long long)st.st_size) + '\t' + std::to_string(mtime_ns) + '\t' +
             std::to_string((unsigned long long)st.st_ino) + '\n';
  }
  return lines;
}

/// What names a step in the stats file: its first output, or its program.
const std::string& StatsName(const std::vector<std::string>& command,
                             const std::vector<std::string>& outputs) {
  return outputs.empty() ? command[0] : outputs[0];
}

/// Runs the step here, on a local core the proxy found idle after the
/// action cache missed `action` (or, cached here, where it always runs): its
/// stdout and stderr captured and passed on, then, where it succeeded,
/// handed to the proxy at `proxy_path` with its outputs to store as that
/// action's result (the proxy reads them before this returns, and uploads
/// them after, adding the store's line to FASTCUDA_REMOTE_STATS: HIT "S",
/// the bytes it sent), and with `headers`, the depfile naming what it read
/// besides its inputs. Where `headers` is no output of the step, its
/// compiler writes it through SUNPRO_DEPENDENCIES (gcc's and clang's -MD by
/// the environment; the object is the same): a compiler that writes none
/// leaves the step uncached. Returns the step's status; dies of the signal that
/// killed it, as the program would have.
int RunHere(const std::vector<std::string>& command, const std::string& action, const std::string& proxy_path,
            const std::string& cwd, const std::vector<std::string>& outputs, const std::string& headers,
            bool headers_by_environment) {
  FILE* out = tmpfile();
  FILE* err = tmpfile();
  if (!out || !err) return RunLocally(command, "");
  fflush(stdout);
  fflush(stderr);
  pid_t pid = fork();
  if (pid < 0) return RunLocally(command, "");
  if (pid == 0) {
    dup2(fileno(out), 1);
    dup2(fileno(err), 2);
    if (headers_by_environment) setenv("SUNPRO_DEPENDENCIES", (headers + " fastcuda-headers").c_str(), 1);
    RunLocally(command, "");
    _exit(127);
  }
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  std::string out_text = ReadWhole(out), err_text = ReadWhole(err);
  fclose(out);
  fclose(err);
  WriteAll(1, out_text);
  WriteAll(2, err_text);
  if (WIFSIGNALED(status)) {
    signal(WTERMSIG(status), SIG_DFL);
    raise(WTERMSIG(status));
  }
  int code = WEXITSTATUS(status);
  std::string left = OutputsAsLeft(outputs);
  if (code == 0 && !stopped && !left.empty()) {
    int fd = Connect(proxy_path);
    if (fd >= 0) {
      std::string request = std::string(1, '\0') + action + '\0' + cwd + '\0' + left + '\0' + headers + '\0' +
                            Env("FASTCUDA_REMOTE_STATS") + '\0' + StatsName(command, outputs);
      // Its byte says the outputs are read: FastCuda may then go on with
      // them (and stub an intermediate) while the proxy uploads
      if (SendAll(fd, Frame(request) + Frame(out_text) + Frame(err_text))) ReceiveExactly(fd, 1);
      close(fd);
    }
  }
  return stopped ? 130 : code;
}

/// Tells `fastcuda report` whether the step hit the cache
/// (FASTCUDA_STEP_CACHE_RESULT names the file).
void SayCacheResult(const std::string& result) {
  std::string said = Env("FASTCUDA_STEP_CACHE_RESULT");
  if (said.empty()) return;
  int fd = open(said.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) return;
  WriteAll(fd, result);
  close(fd);
}

/// Appends the step's line to FASTCUDA_REMOTE_STATS, where set: WALL REMOTE
/// TRANSFER HIT SENT RECEIVED PROXY DIGEST LOOKUP STARTED OUTPUT: seconds in
/// the step, in the remote action (`remote`; for a step run here, HIT "L" on
/// an idle core or "C" cached here: its run here; the proxy adds an "S"
/// line for each result it stores, RunHere) and in the transfers (the
/// rest is the client's), bytes; then the client's share: seconds in the
/// proxy (the rest is this wrapper's start, the socket and waits for a CPU),
/// of which hashing the inputs and asking the action cache; when the step
/// started (seconds since the epoch), to set beside the worker's times.
/// `fields`: the proxy's answer.
void WriteStats(std::chrono::steady_clock::time_point started, double started_epoch,
                const std::vector<std::string>& fields, const std::string& remote, const std::string& hit,
                const std::string& output) {
  std::string stats = Env("FASTCUDA_REMOTE_STATS");
  if (stats.empty() || fields.size() < 12) return;
  double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  char text[64];
  snprintf(text, sizeof text, "%.4f", wall);
  std::string line = text;
  for (const std::string& field :
       {remote, fields[6], hit, fields[7], fields[8], fields[9], fields[10], fields[11]})
    line += " " + field;
  snprintf(text, sizeof text, " %.3f ", started_epoch);
  AppendLine(stats, line + text + output);
}

/// The proxy of this configuration (the path beside this program) and how
/// to connect to it, started where none runs: ProxyConnection.
int ConnectToProxy(const std::string& remote, std::string& path) {
  std::error_code error;
  std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe", error);
  std::string proxy = (self.parent_path() / FASTCUDA_REMOTE_PROXY).lexically_normal().string();
  return ProxyConnection(remote, proxy, path);
}

/// --start-proxy: has a child start the proxy where none runs and returns
/// at once, so that a build's first steps find it running (its start took
/// 0.3-0.5 s of their time). Nothing to report: a step that finds no proxy
/// starts one, or falls back, as it would without this.
int StartProxyInBackground(const std::string& remote) {
  pid_t pid = fork();
  if (pid != 0) return 0;
  setsid();
  int null = open("/dev/null", O_RDWR | O_CLOEXEC);
  for (int fd : {0, 1, 2}) dup2(null, fd);
  std::string path;
  int fd = ConnectToProxy(remote, path);
  _exit(fd < 0 ? 1 : 0);
}

}  // namespace

int main(int argc, char** argv) {
  auto started = std::chrono::steady_clock::now();
  const double started_epoch =
      std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
  std::vector<std::string> args(argv + 1, argv + argc);
  std::string remote = Env("FASTCUDA_REMOTE");
  size_t first = 0;
  bool start_proxy = false, cache_only = false;
  while (first < args.size() && args[first].rfind("--", 0) == 0) {
    if (args[first] == "--cache-only") {
      cache_only = true;
      ++first;
    } else if (args[first] == "--remote" && first + 1 < args.size()) {
      remote = args[first + 1];
      first += 2;
    } else if (args[first] == "--start-proxy") {
      start_proxy = true;
      ++first;
    } else if (args[first] == "--") {
      ++first;
      break;
    } else {
      break;
    }
  }
  std::vector<std::string> command(args.begin() + long(first), args.end());
  if (start_proxy && command.empty()) return remote.empty() ? 0 : StartProxyInBackground(remote);
  if (command.empty() || command[0].rfind("--", 0) == 0) {
    fprintf(stderr,
            "usage: fastcuda-remote [--cache-only] [--remote grpc://HOST:PORT] [--] CMD ARGS...\n"
            "       fastcuda-remote [--remote grpc://HOST:PORT] --start-proxy\n");
    return 125;
  }
  // Not told the step's files: nothing to send.
  if (remote.empty() || !getenv("FASTCUDA_STEP_INPUTS")) return RunLocally(command, "");
  bool fallback = Env("FASTCUDA_REMOTE_FALLBACK", "on") != "off";
  auto give_up = [&](const std::string& why) {
    std::string message = "fastcuda-remote: " + remote + ": " + why;
    if (fallback) return RunLocally(command, message + "; running the step locally");
    fprintf(stderr, "%s\n", message.c_str());
    return 125;
  };
  std::vector<std::string> outputs = Lines(Env("FASTCUDA_STEP_OUTPUTS"));
  // A step cached here hands back its depfile from the cache too.
  const std::string depfile = cache_only ? Env("FASTCUDA_STEP_DEPFILE") : "";
  if (!depfile.empty()) outputs.push_back(depfile);
  for (const std::string& output : outputs) unlink(output.c_str());  // none stale if this fails

  // No SA_RESTART: a blocking recv returns EINTR. A signal inherited as
  // ignored stays ignored, as it does for the step's own program.
  struct sigaction action {};
  action.sa_handler = Stop;
  for (int signal : {SIGINT, SIGTERM, SIGHUP}) {
    struct sigaction current {};
    sigaction(signal, nullptr, &current);
    if (current.sa_handler != SIG_IGN) sigaction(signal, &action, nullptr);
  }

  std::string path;
  int fd = ConnectToProxy(remote, path);
  if (stopped) return 130;
  if (fd < 0) return give_up("the client's proxy did not start (its log: " + path + ".log)");

  char cwd[4096];
  if (!getcwd(cwd, sizeof cwd)) return give_up("no working directory");
  std::string listed;
  for (const std::string& output : outputs) listed += output + '\n';
  std::string request = std::string(cwd) + '\0' + Env("FASTCUDA_STEP_INPUTS") + '\0' + listed + '\0' +
                        Env("PATH", "/usr/bin:/bin") + '\0' + (cache_only ? "cache-only" : "") + '\0' +
                        depfile + '\0' + (cache_only ? Env("FASTCUDA_STEP_WORK_DIR") : "") + '\0' +
                        (cache_only ? KeyedEnvironment() : "");
  for (const std::string& word : command) request += '\0' + word;
  std::optional<std::string> header, out, err;
  if (SendAll(fd, Frame(request))) header = ReceiveFrame(fd);
  if (header) out = ReceiveFrame(fd);
  if (out) err = ReceiveFrame(fd);
  const std::vector<std::string> fields = header ? Split(*header, '\0') : std::vector<std::string>{};
  std::vector<std::string> moves = fields.size() > 4 ? Lines(fields[4]) : std::vector<std::string>{};
  if (stopped) {
    close(fd);
    Discard(moves);
    return 130;
  }
  if (!err || fields.size() < 5) {
    close(fd);
    Discard(moves);
    return give_up("lost the client's proxy (its log: " + path + ".log)");
  }
  const std::string& kind = fields[0];
  const std::string& stats_name = StatsName(command, outputs);
  if (kind == "local") return RunLocally(command, fields[3]);
  if (kind == "here") {
    close(fd);
    auto ran = std::chrono::steady_clock::now();
    std::string headers = depfile;
    if (cache_only && headers.empty()) {
      std::string name = Env("TMPDIR", "/tmp") + "/fastcuda-headers-XXXXXX";
      int made = mkstemp(name.data());
      if (made >= 0) close(made);
      if (made >= 0) headers = name;
    }
    int status = RunHere(command, fields[3], path, cwd, outputs, headers, headers != depfile);
    if (headers != depfile) unlink(headers.c_str());
    // A miss, run here where it always runs, or on an idle core
    SayCacheResult(cache_only ? "miss" : "here");
    std::string run =
        std::to_string(std::chrono::duration<double>(std::chrono::steady_clock::now() - ran).count());
    WriteStats(started, started_epoch, fields, run, cache_only ? "C" : "L", stats_name);
    return status;
  }
  if (kind == "fail") {
    fprintf(stderr, "%s\n", fields[3].c_str());
    return 125;
  }
  for (const std::string& move : moves) {
    size_t tab = move.find('\t');
    if (rename(move.substr(0, tab).c_str(), move.substr(tab + 1).c_str()) != 0) {
      Discard(moves);
      return give_up("cannot write " + move.substr(tab + 1) + ": " + strerror(errno));
    }
  }
  close(fd);
  WriteAll(1, *out);
  WriteAll(2, *err);
  bool hit = fields[2] == "1";
  SayCacheResult(hit ? "hit" : "miss");
  WriteStats(started, started_epoch, fields, fields.size() > 5 ? fields[5] : "", hit ? "1" : "0", stats_name);
  return atoi(fields[1].c_str());
}

#include "src/cli/progress_output.h"

#include <fcntl.h>
#include <re2/re2.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <termios.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>

#include "src/base/ninja_command_line.h"
#include "src/base/toolchain_environment.h"

namespace fastcuda {
namespace {

/// Writes to a descriptor of its own on another process's output.
class DescriptorOutput : public ProgressOutput {
 public:
  DescriptorOutput(int fd, bool redraws) : fd_(fd), redraws_(redraws) {}
  ~DescriptorOutput() override { close(fd_); }
  DescriptorOutput(const DescriptorOutput&) = delete;
  DescriptorOutput& operator=(const DescriptorOutput&) = delete;

  void Write(std::string_view text) override {
    // A reader that has gone must not end the build by SIGPIPE: the signal
    // is held while writing and taken back if the write raised it. The
    // descriptor does not block, so a full pipe drops the text instead of
    // stalling the graph (a pipe takes a line under PIPE_BUF whole or not).
    sigset_t pipe_signal, before;
    sigemptyset(&pipe_signal);
    sigaddset(&pipe_signal, SIGPIPE);
    pthread_sigmask(SIG_BLOCK, &pipe_signal, &before);
    if (write(fd_, text.data(), text.size()) < 0 && errno == EPIPE) {
      timespec now{};
      while (sigtimedwait(&pipe_signal, nullptr, &now) < 0 && errno == EINTR) {
      }
    }
    pthread_sigmask(SIG_SETMASK, &before, nullptr);
  }

  size_t Columns() const override {
    winsize size{};
    if (!redraws_ || ioctl(fd_, TIOCGWINSZ, &size) != 0) return 0;
    return size.ws_col;
  }

 private:
  int fd_;
  bool redraws_;
};

/// The open flags of descriptor `fd` of process `pid` (/proc/PID/fdinfo/FD).
std::optional<int> DescriptorFlags(int pid, int fd, const FileSystem& fs) {
  std::optional<std::string> info = fs.Read("/proc/" + std::to_string(pid) + "/fdinfo/" + std::to_string(fd));
  static const RE2 flags(R"re((?m)^flags:\s*([0-7]+))re");
  std::string octal;
  if (!info || !RE2::PartialMatch(*info, flags, &octal)) return std::nullopt;
  return static_cast<int>(std::stoul(octal, nullptr, 8));
}

}  // namespace

std::unique_ptr<ProgressOutput> OpenProgressOutput(int pid, int fd,
                                                   const std::map<std::string, std::string>& environment,
                                                   const FileSystem& fs) {
  const std::string setting = EnvironmentValue(environment, "FASTCUDA_PROGRESS");
  if (setting == "0" || setting == "off") return nullptr;
  const std::string path = "/proc/" + std::to_string(pid) + "/fd/" + std::to_string(fd);
  struct stat target {};
  if (stat(path.c_str(), &target) != 0) return nullptr;
  int mode = O_WRONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC;
  if (S_ISREG(target.st_mode)) {
    // Appended to by its owner: so by FastCuda too. Else the owner writes
    // from its own offset, over whatever FastCuda would have added.
    std::optional<int> flags = DescriptorFlags(pid, fd, fs);
    if (!flags || !(*flags & O_APPEND)) return nullptr;
    mode |= O_APPEND;
  } else if (!S_ISCHR(target.st_mode) && !S_ISFIFO(target.st_mode)) {  // a socket cannot be opened anew
    return nullptr;
  }
  const int output = open(path.c_str(), mode);
  if (output < 0) return nullptr;
  bool redraws = false;
  if (isatty(output)) {
    termios terminal{};
    if (tcgetattr(output, &terminal) != 0 || (terminal.c_lflag & TOSTOP)) {
      close(output);
      return nullptr;
    }
    // As Ninja decides whether it redraws its own status line.
    const std::string term = EnvironmentValue(environment, "TERM");
    redraws = !term.empty() && term != "dumb";
  } else if (S_ISCHR(target.st_mode)) {  // /dev/null: no one reads it
    close(output);
    return nullptr;
  }
  return std::make_unique<DescriptorOutput>(output, redraws);
}

GraphProgress ProgressUnderNinja(const ProcessInfo& ninja, std::chrono::milliseconds start_delay,
                                 const std::map<std::string, std::string>& environment,
                                 const FileSystem& fs) {
  if (ParseNinjaCommandLine(ninja.argv).quiet) return {};
  GraphProgress shown{OpenProgressOutput(ninja.pid, STDOUT_FILENO, environment, fs), nullptr};
  if (!shown.output) return shown;
  ProgressPace pace;
  pace.start_delay = start_delay;
  auto now = [] {
    return std::chrono::duration_cast<std::chrono::milliseconds>(
        std::chrono::steady_clock::now().time_since_epoch());
  };
  shown.progress = std::make_unique<BuildProgress>(*shown.output, now, pace);
  return shown;
}

}  // namespace fastcuda

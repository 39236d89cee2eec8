#include "src/cli/progress_output.h"

#include <doctest/doctest.h>
#include <fcntl.h>
#include <sys/ioctl.h>
#include <termios.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <string>

#include "src/base/file_system.h"

using namespace fastcuda;

namespace {

/// What is waiting to be read on `fd`.
std::string Waiting(int fd) {
  char buffer[256];
  ssize_t n = read(fd, buffer, sizeof buffer);
  return n > 0 ? std::string(buffer, n) : "";
}

/// A pseudo-terminal of 100 columns: its controller and its terminal side.
struct Terminal {
  Terminal() {
    controller = posix_openpt(O_RDWR | O_NOCTTY);
    REQUIRE(controller >= 0);
    REQUIRE(grantpt(controller) == 0);
    REQUIRE(unlockpt(controller) == 0);
    side = open(ptsname(controller), O_RDWR | O_NOCTTY);
    REQUIRE(side >= 0);
    winsize size{};
    size.ws_col = 100;
    size.ws_row = 40;
    ioctl(side, TIOCSWINSZ, &size);
  }
  ~Terminal() {
    close(side);
    close(controller);
  }
  int controller = -1;
  int side = -1;
};

}  // namespace

TEST_CASE("progress on a pipe: plain lines, written through a descriptor of its own") {
  RealFileSystem disk;
  int ends[2];
  REQUIRE(pipe(ends) == 0);
  std::unique_ptr<ProgressOutput> output = OpenProgressOutput(getpid(), ends[1], {}, disk);
  REQUIRE(output);
  CHECK(output->Columns() == 0);
  close(ends[1]);  // the owner's end: FastCuda writes through its own
  output->Write("fastcuda: 1/2\n");
  CHECK(Waiting(ends[0]) == "fastcuda: 1/2\n");
  close(ends[0]);
  output->Write("a reader that has gone does not end the build\n");  // SIGPIPE held
}

TEST_CASE("FASTCUDA_PROGRESS=0 shows none") {
  RealFileSystem disk;
  int ends[2];
  REQUIRE(pipe(ends) == 0);
  CHECK_FALSE(OpenProgressOutput(getpid(), ends[1], {{"FASTCUDA_PROGRESS", "0"}}, disk));
  CHECK(OpenProgressOutput(getpid(), ends[1], {{"FASTCUDA_PROGRESS", "1"}}, disk));
  close(ends[0]);
  close(ends[1]);
}

TEST_CASE("progress on a file: only where its owner appends, as an append would be overwritten else") {
  RealFileSystem disk;
  const std::filesystem::path log =
      std::filesystem::temp_directory_path() / ("fastcuda-progress-test-" + std::to_string(getpid()));
  const int from_offset = open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  REQUIRE(from_offset >= 0);
  CHECK_FALSE(OpenProgressOutput(getpid(), from_offset, {}, disk));
  close(from_offset);
  const int appending = open(log.c_str(), O_WRONLY | O_APPEND | O_CLOEXEC);
  REQUIRE(appending >= 0);
  REQUIRE(write(appending, "[1/3] a\n", 8) == 8);
  std::unique_ptr<ProgressOutput> output = OpenProgressOutput(getpid(), appending, {}, disk);
  REQUIRE(output);
  CHECK(output->Columns() == 0);
  output->Write("fastcuda: 1/2\n");
  REQUIRE(write(appending, "[2/3] b\n", 8) == 8);
  close(appending);
  CHECK(disk.Read(log.string()) == "[1/3] a\nfastcuda: 1/2\n[2/3] b\n");
  std::filesystem::remove(log);
}

TEST_CASE("progress on a terminal: redrawn at its width where Ninja redraws; none where it stops writers") {
  RealFileSystem disk;
  Terminal terminal;
  std::unique_ptr<ProgressOutput> output =
      OpenProgressOutput(getpid(), terminal.side, {{"TERM", "xterm"}}, disk);
  REQUIRE(output);
  CHECK(output->Columns() == 100);
  output->Write("\r[1/2]\x1b[K");
  CHECK(Waiting(terminal.controller) == "\r[1/2]\x1b[K");
  // As Ninja, which prints plain lines there too.
  for (const char* plain : {"dumb", ""}) {
    output = OpenProgressOutput(getpid(), terminal.side, {{"TERM", plain}}, disk);
    REQUIRE(output);
    CHECK(output->Columns() == 0);
  }
  termios settings{};
  REQUIRE(tcgetattr(terminal.side, &settings) == 0);
  settings.c_lflag |= TOSTOP;
  REQUIRE(tcsetattr(terminal.side, TCSANOW, &settings) == 0);
  CHECK_FALSE(OpenProgressOutput(getpid(), terminal.side, {{"TERM", "xterm"}}, disk));
}

TEST_CASE("progress on /dev/null, or on a descriptor that is not open: none") {
  RealFileSystem disk;
  const int null = open("/dev/null", O_WRONLY | O_CLOEXEC);
  REQUIRE(null >= 0);
  CHECK_FALSE(OpenProgressOutput(getpid(), null, {}, disk));
  close(null);
  CHECK_FALSE(OpenProgressOutput(getpid(), 1000, {}, disk));
}

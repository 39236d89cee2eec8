#include <doctest/doctest.h>
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <map>
#include <sstream>

#include "src/base/build_progress.h"
#include "src/base/file_system.h"
#include "src/base/ninja_command_line.h"
#include "src/base/ninja_status.h"
#include "src/cli/run_ninja.h"
#include "tests/test_support.h"

using namespace fastcuda;

TEST_CASE("what targets need: the targets and their inputs, resolved where their Ninja runs") {
  NinjaCommandLine line = ParseNinjaCommandLine({"ninja", "-C", "b", "lib", "/abs/x.o", "src/f.cu^"});
  TargetNeeds needs =
      NeedsOfTargets(line.targets, "/w/b", "CMakeFiles/l.dir/a.cu.o\n/s/a.cu\n\n../gen/h.h\n");
  CHECK(needs.paths == std::set<std::string>{"/w/b/CMakeFiles/l.dir/a.cu.o", "/s/a.cu", "/w/gen/h.h",
                                             "/w/b/lib", "/abs/x.o"});
  CHECK(needs.caret_sources == std::set<std::string>{"/w/b/src/f.cu"});
}

TEST_CASE("Ninja runs holding the lock, in a process group of its own, its streams apart") {
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("fastcuda-run-ninja-test-" + std::to_string(getpid()));
  std::filesystem::create_directories(dir);
  const std::string ninja = (dir / "ninja").string();
  // A stand-in Ninja: says whether the lock's descriptor is open in it and
  // whether it leads its process group, and writes to stderr too.
  WriteFileAtomically(
      ninja,
      "#!/bin/sh\n"
      "[ -n \"$FASTCUDA_INHERITED_FD\" ] && [ -e \"/proc/self/fd/$FASTCUDA_INHERITED_FD\" ] &&\n"
      "  echo lock held\n"
      "[ \"$(ps -o pgid= $$ | tr -d ' ')\" = \"$$\" ] && echo own group\n"
      "echo on stderr >&2\n");
  std::filesystem::permissions(ninja, std::filesystem::perms::owner_all);
  const int lock = open((dir / "lock").c_str(), O_CREAT | O_RDWR | O_CLOEXEC, 0644);
  REQUIRE(lock >= 0);
  RealCommandRunner runner;
  RealFileSystem disk;
  const std::map<std::string, std::string> environment = {{"FASTCUDA_NINJA", ninja}};
  NinjaRun run;
  run.dir = dir.string();
  run.capture = true;
  run.lock_fd = lock;
  ProcessResult result = RunNinja(run, {runner, disk, environment});
  close(lock);
  std::filesystem::remove_all(dir);
  CHECK(result.exit_code == 0);
  CHECK(result.stdout_text.find("lock held") != std::string::npos);
  CHECK(result.stdout_text.find("own group") != std::string::npos);
  CHECK(result.stdout_text.find("on stderr") == std::string::npos);
  CHECK(result.stderr_text.find("on stderr") != std::string::npos);
}

TEST_CASE("on a fake runner: Ninja's command line, from the run and the environment") {
  fastcuda::testing::FakeIo fake(fastcuda::testing::FakeFileSystem(),
                                 {{"FASTCUDA_NINJA", "/opt/ninja"}, {"MAKEFLAGS", "-j3"}});
  fake.runner.answer = [](const ProcessSpec& spec) {
    return ProcessResult{spec.argv.back() == "--version" ? 0 : 5, 0, "1.11.1\n"};
  };
  NinjaRun run;
  run.manifest = "/w/build.ninja";
  run.cwd = "/w";
  run.quiet = run.keep_going = run.plain_status = true;
  run.lock_fd = 7;
  run.targets = {"a.o"};
  CHECK(RunNinja(run, fake.io).exit_code == 5);
  REQUIRE(!fake.runner.ran.empty());
  const ProcessSpec& ninja = fake.runner.ran.back();
  // An older Ninja under make: make's -j, as FastCuda limits itself to it.
  CHECK(ninja.argv == std::vector<std::string>{"/opt/ninja", "-f", "/w/build.ninja", "--quiet", "-j", "3",
                                               "-k", "0", "--", "a.o"});
  CHECK(ninja.cwd == "/w");
  CHECK(ninja.own_process_group);
  CHECK(ninja.inherited_fd == 7);
  CHECK(ninja.env_set.at("TERM") == "dumb");  // its status a line per edge
}

TEST_CASE("on a fake runner: what targets need, as `ninja -t inputs` says; nothing where it fails") {
  fastcuda::testing::FakeCommandRunner runner;
  runner.answer = [](const ProcessSpec& spec) {
    if (spec.argv.back() == "--version") return ProcessResult{0, 0, "1.12.1\n"};
    return spec.argv.back() == "bad" ? ProcessResult{1, 0, "", "unknown target 'bad'\n"}
                                     : ProcessResult{0, 0, "a.cu\n"};
  };
  std::string error;
  std::optional<TargetNeeds> needs =
      AskTargetNeeds("/opt/ninja-1.12", "/w", "m.ninja", {"a.o"}, runner, error);
  REQUIRE(needs);
  CHECK(needs->paths == std::set<std::string>{"/w/a.cu", "/w/a.o"});
  // 1.12 and later quote paths for a shell unless told not to.
  CHECK(runner.ran.back().argv == std::vector<std::string>{"/opt/ninja-1.12", "-C", "/w", "-f", "m.ninja",
                                                           "-t", "inputs", "--no-shell-escape", "a.o"});
  CHECK_FALSE(AskTargetNeeds("/opt/ninja-1.12", "/w", "m.ninja", {"bad"}, runner, error));
  CHECK(error == "unknown target 'bad'\n");
}

TEST_CASE("a followed Ninja: its status in FastCuda's format, read as it comes, left out of its output") {
  fastcuda::testing::FakeIo fake(fastcuda::testing::FakeFileSystem(), {{"FASTCUDA_NINJA", "/opt/ninja"}});
  fake.runner.answer = [](const ProcessSpec& spec) {
    if (spec.argv.back() == "--version") return ProcessResult{0, 0, "1.11.1\n"};
    spec.stream_stdout("fastcuda-status 1 2 1: CICC a.cu\nFAILED: b.o\n");
    spec.tick(0);
    spec.stream_stdout("nvcc b.cu\n");
    return ProcessResult{1};
  };
  /// Plain lines, recorded.
  struct Lines : ProgressOutput {
    void Write(std::string_view text) override { written += text; }
    size_t Columns() const override { return 0; }
    std::string written;
  } lines;
  std::chrono::milliseconds now{0};
  BuildProgress progress(lines, [&] { return now; });
  NinjaRun run;
  run.dir = "/g";
  run.quiet = run.capture = true;
  run.progress = &progress;
  now = std::chrono::milliseconds(20'000);
  ProcessResult result = RunNinja(run, fake.io);
  const ProcessSpec& ninja = fake.runner.ran.back();
  CHECK(std::find(ninja.argv.begin(), ninja.argv.end(), "--quiet") == ninja.argv.end());
  CHECK(ninja.env_set.at("NINJA_STATUS") == kFollowedNinjaStatus);
  CHECK(result.exit_code == 1);
  CHECK(result.stdout_text == "FAILED: b.o\nnvcc b.cu\n");
  CHECK(lines.written == "fastcuda: 1/2 CUDA sub-steps (50%), 1 running, 20s; last: CICC a.cu\n");
}

TEST_CASE("under make, Ninja's stdout is filtered to the objects' lines and the steps' output as it comes") {
  fastcuda::testing::FakeIo fake(fastcuda::testing::FakeFileSystem(), {{"FASTCUDA_NINJA", "/opt/ninja"}});
  std::ostringstream printed, printed_on_stderr;
  std::streambuf* const cout_buffer = std::cout.rdbuf(printed.rdbuf());
  std::streambuf* const cerr_buffer = std::cerr.rdbuf(printed_on_stderr.rdbuf());
  std::string printed_before_end;
  fake.runner.answer = [&](const ProcessSpec& spec) {
    if (spec.argv.back() == "--version") return ProcessResult{0, 0, "1.12.1\n"};
    spec.stream_stdout("ninja: Entering directory `/g'\nfastcuda-status 1 2 1: CICC a.cu\na.cu(1): warn");
    spec.stream_stdout("ing\nfastcuda-status 2 2 0: Building CUDA object CMakeFiles/t.dir/a.cu.o\n");
    printed_before_end = printed.str();
    return ProcessResult{0, 0, "", "ninja: warning: on stderr\n"};
  };
  NinjaRun run;
  run.dir = "/g";
  run.object_lines = true;
  ProcessResult result = RunNinja(run, fake.io);
  std::cout.rdbuf(cout_buffer);
  std::cerr.rdbuf(cerr_buffer);
  const ProcessSpec& ninja = fake.runner.ran.back();
  CHECK(ninja.capture_output);
  CHECK(ninja.env_set.at("NINJA_STATUS") == kFollowedNinjaStatus);
  CHECK(result.exit_code == 0);
  CHECK(printed_before_end == "CICC a.cu\na.cu(1): warning\nBuilding CUDA object CMakeFiles/t.dir/a.cu.o\n");
  CHECK(printed.str() == printed_before_end);
  CHECK(printed_on_stderr.str() == "ninja: warning: on stderr\n");
}

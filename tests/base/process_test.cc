#include <doctest/doctest.h>

#include <unistd.h>

#include <algorithm>
#include <csignal>
#include <filesystem>
#include <fstream>

#include "src/base/process.h"
#include "tests/test_support.h"

using namespace fastcuda;

TEST_CASE("a child killed by a signal: the signal, 128 + it as exit code, its output before") {
  ProcessResult result = RunProcess({{"sh", "-c", "echo said >&2; kill -SEGV $$"}, "", {}, true});
  CHECK(result.signal == SIGSEGV);
  CHECK(result.exit_code == 128 + SIGSEGV);
  CHECK(result.stderr_text == "said\n");
  CHECK(DescribeEnd(result) == "killed by signal 11 (Segmentation fault)");
}

TEST_CASE("a child that exits: its status, no signal") {
  ProcessResult result = RunProcess({{"sh", "-c", "exit 3"}, "", {}, true});
  CHECK(result.signal == 0);
  CHECK(result.exit_code == 3);
  CHECK(DescribeEnd(result) == "exited with status 3");
}

TEST_CASE("a child's TMPDIR: emptied of what a killed run left before it starts, removed after") {
  std::filesystem::path root =
      std::filesystem::temp_directory_path() / ("fastcuda-process-test-" + std::to_string(getpid()));
  std::filesystem::path dir = root / "step";
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "left-by-a-killed-run").put('x');
  ProcessSpec spec{{"sh", "-c", "ls -A \"$TMPDIR\"; echo \"$TMPDIR\"; touch \"$TMPDIR/left\"; kill -INT $$"},
                   "",
                   {{"TMPDIR", "/elsewhere"}},
                   true};
  spec.temp_dir = dir.string();
  ProcessResult result = RunProcess(spec);
  CHECK(result.signal == SIGINT);
  CHECK(result.stdout_text == dir.string() + "\n");  // nothing listed: empty when it started
  CHECK_FALSE(std::filesystem::exists(dir));
  std::filesystem::remove_all(root);
}

TEST_CASE("a program's version is the first dotted number it prints, or nothing") {
  RealCommandRunner runner;
  CHECK(ProgramVersion(runner, "/nonexistent/sccache") == "");
  // By its path: the programs of tests on fakes are asked by name.
  const std::string ninja = FindProgram("ninja", CurrentEnvironment()["PATH"]);
  CHECK(ProgramVersion(runner, ninja).find('.') != std::string::npos);  // "1.11.1"
}

TEST_CASE("on a fake runner: a program's version is asked once") {
  fastcuda::testing::FakeCommandRunner runner;
  runner.answer = [](const ProcessSpec&) { return ProcessResult{0, 0, "", "sccache 0.9.1-beta\n"}; };
  CHECK(ProgramVersion(runner, "/fake/sccache-version-test") == "0.9.1");
  CHECK(ProgramVersion(runner, "/fake/sccache-version-test") == "0.9.1");
  REQUIRE(runner.ran.size() == 1);
  CHECK(runner.ran[0].argv == std::vector<std::string>{"/fake/sccache-version-test", "--version"});
  CHECK(runner.ran[0].capture_output);
}

TEST_CASE("a streamed stdout comes as it is written, with ticks between; stderr is still collected") {
  ProcessSpec spec{{"sh", "-c", "echo one; sleep 0.5; echo two; echo apart >&2"}, "", {}, true};
  std::string streamed;
  std::vector<std::string> when_ticked;  // what had come at each tick
  spec.stream_stdout = [&](std::string_view text) { streamed.append(text); };
  spec.tick = [&](int64_t) { when_ticked.push_back(streamed); };
  ProcessResult result = RunProcess(spec);
  CHECK(streamed == "one\ntwo\n");
  CHECK(result.stdout_text.empty());
  CHECK(result.stderr_text == "apart\n");
  // The half second between the lines ticks at least once with one line in.
  CHECK(std::count(when_ticked.begin(), when_ticked.end(), "one\n") >= 2);
}

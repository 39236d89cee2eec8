#include <doctest/doctest.h>

#include <csignal>

#include "src/base/process.h"

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

TEST_CASE("a program's version is the first dotted number it prints, or nothing") {
  CHECK(ProgramVersion("/nonexistent/sccache") == "");
  CHECK(ProgramVersion("ninja").find('.') != std::string::npos);  // "1.11.1"
}

#include <doctest/doctest.h>
#include <fcntl.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>

#include "src/base/file_system.h"
#include "src/base/ninja_command_line.h"
#include "src/cli/run_ninja.h"

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
  setenv("FASTCUDA_NINJA", ninja.c_str(), 1);
  NinjaRun run;
  run.dir = dir.string();
  run.capture = true;
  run.lock_fd = lock;
  ProcessResult result = RunNinja(run);
  unsetenv("FASTCUDA_NINJA");
  close(lock);
  std::filesystem::remove_all(dir);
  CHECK(result.exit_code == 0);
  CHECK(result.stdout_text.find("lock held") != std::string::npos);
  CHECK(result.stdout_text.find("own group") != std::string::npos);
  CHECK(result.stdout_text.find("on stderr") == std::string::npos);
  CHECK(result.stderr_text.find("on stderr") != std::string::npos);
}

#include <doctest/doctest.h>

#include <re2/re2.h>

#include <stdexcept>

#include "src/graph/compile_modes.h"

using namespace fastcuda;

TEST_CASE("FASTCUDA_MODULE_ID: nvcc by default, own on request, nothing else") {
  CHECK(ParseModuleIdMode("") == ModuleIdMode::kNvcc);
  CHECK(ParseModuleIdMode("nvcc") == ModuleIdMode::kNvcc);
  CHECK(ParseModuleIdMode("own") == ModuleIdMode::kOwn);
  CHECK_THROWS_AS(ParseModuleIdMode("mine"), std::invalid_argument);
}

TEST_CASE("FASTCUDA_SPLIT_COMPILE: off, auto or a thread count") {
  CHECK(ParseSplitCompile("").mode == SplitCompile::Mode::kOff);
  CHECK(ParseSplitCompile("off").mode == SplitCompile::Mode::kOff);
  CHECK(ParseSplitCompile("auto").mode == SplitCompile::Mode::kAuto);
  SplitCompile four = ParseSplitCompile("4");
  CHECK(four.mode == SplitCompile::Mode::kFixed);
  CHECK(four.threads == 4);
  CHECK(ParseSplitCompile("0").threads == 0);  // nvcc's "one per CPU"
  for (const char* bad : {"-1", "4x", "many", "2.5"}) {
    CHECK_THROWS_AS(ParseSplitCompile(bad), std::invalid_argument);
  }
}

TEST_CASE("own module ids: nvcc's shape, an identifier, one per TU") {
  std::string id = OwnModuleId("/src/a dir/kernel.cu", {"kernel.o"});
  CHECK(RE2::FullMatch(id, R"(_[0-9a-f]{16}_9_kernel_cu)"));
  CHECK(RE2::FullMatch(OwnModuleId("/src/é-x.cu", {"x.o"}), R"(_[0-9a-f]{16}_\d+_[A-Za-z0-9_]+)"));
  CHECK(id == OwnModuleId("/src/a dir/kernel.cu", {"kernel.o"}));
  // The same source compiled twice (other flags, other objects) or another
  // source of the same name must not share an id.
  CHECK(id != OwnModuleId("/src/a dir/kernel.cu", {"kernel_debug.o"}));
  CHECK(id != OwnModuleId("/src/other/kernel.cu", {"kernel.o"}));
}

TEST_CASE("split flags: the words cicc and ptxas both take; the user's own flag is seen") {
  CHECK(SplitCompileFlag(3) == std::vector<std::string>{"-split-compile", "3"});
  CHECK(HasSplitCompileFlag({"ptxas", "-split-compile=4", "a.ptx"}));
  CHECK(HasSplitCompileFlag({"cicc", "-split-compile", "4", "a.ii"}));
  CHECK_FALSE(HasSplitCompileFlag({"ptxas", "-arch=sm_80", "a.ptx"}));
}

TEST_CASE("auto threads: one in a full build, else twice the slots shared by the jobs that split") {
  // BuildLoad: slots, running jobs, of them splitting; then the TU's chains.
  CHECK(AutoSplitThreads({16, 6, 5}, 5) == 8);   // edit loop: 5 arch chains beside cudafe++
  CHECK(AutoSplitThreads({16, 4, 1}, 5) == 8);   // the first of them to start
  CHECK(AutoSplitThreads({16, 1, 1}, 1) == 16);  // the tail: one chain alone, all slots at most
  CHECK(AutoSplitThreads({16, 2, 2}, 1) == 16);
  CHECK(AutoSplitThreads({16, 16, 3}, 1) == 1);   // a full build: no split
  CHECK(AutoSplitThreads({16, 20, 20}, 1) == 1);  // more jobs than slots (ninja's default -j)
  CHECK(AutoSplitThreads({16, 15, 12}, 2) == 4);  // one slot free
  CHECK(AutoSplitThreads({4, 2, 1}, 1) == 4);     // ninja -j4 (or make -j4) on 16 cores
  CHECK(AutoSplitThreads({2, 2, 1}, 1) == 1);     // 2 cores: cicc beside cudafe++ fills them
  CHECK(AutoSplitThreads({2, 1, 1}, 1) == 2);
  CHECK(AutoSplitThreads({16, 3, 0}, 0) == 16);  // a reading that missed the step itself
}

TEST_CASE("auto split appends the threads, after a launcher's command too, only when it splits") {
  std::vector<std::string> cicc = {"sccache", "cicc", "-arch", "compute_80", "in.ii", "-o", "out.ptx"};
  std::vector<std::string> split = WithAutoSplit(cicc, {16, 4, 3}, 2);
  CHECK(split.front() == "sccache");
  CHECK(std::vector<std::string>(split.begin(), split.begin() + cicc.size()) == cicc);
  CHECK(std::vector<std::string>(split.begin() + cicc.size(), split.end()) ==
        std::vector<std::string>{"-split-compile", "12"});
  CHECK(WithAutoSplit(cicc, {16, 16, 16}, 2) == cicc);  // a full build
}

#include "src/base/object_lines.h"

#include <doctest/doctest.h>

#include <string>

using namespace fastcuda;

TEST_CASE("an object's line names it from the top build directory, as CMake's Makefiles do") {
  CHECK(ObjectLine("/b/CMakeFiles/t.dir/k.cu.o", "/b") == "Building CUDA object CMakeFiles/t.dir/k.cu.o");
  CHECK(ObjectLine("/b/sub/CMakeFiles/u.dir/m.cu.o", "/b/") ==
        "Building CUDA object sub/CMakeFiles/u.dir/m.cu.o");
  CHECK(ObjectLine("/b/sub/../x.o", "/b") == "Building CUDA object x.o");
  CHECK(ObjectLine("/elsewhere/k.o", "/b") == "Building CUDA object /elsewhere/k.o");
}

TEST_CASE("under make, a graph shows its objects' lines and its steps' output, not Ninja's status") {
  ObjectLineFilter filter;
  std::string shown = filter.Read(
      "ninja: Entering directory `/b/fastcuda'\n"
      "fastcuda-status 1 3 2: CICC compute_80 /s/k.cu\n"
      "k.cu(1): warning: from cicc\n"
      "fastcuda-status 2 3 1: Building CUDA object CMakeFiles/t.dir/k.cu.o\n"
      "fastcuda-status 3 3 0: Building CUDA obj");
  CHECK(shown ==
        "CICC compute_80 /s/k.cu\n"
        "k.cu(1): warning: from cicc\n"
        "Building CUDA object CMakeFiles/t.dir/k.cu.o\n");
  CHECK(filter.Read("ect CMakeFiles/t.dir/l.cu.o\nno newline") ==
        "Building CUDA object CMakeFiles/t.dir/l.cu.o\n");
  CHECK(filter.Finish() == "no newline");
  CHECK(filter.Finish().empty());
}

TEST_CASE("under make, a step that printed nothing shows nothing; an object's output follows its line") {
  ObjectLineFilter filter;
  CHECK(filter.Read("fastcuda-status 1 3 1: PTXAS sm_80 /s/k.cu\n"
                    "fastcuda-status 2 3 1: Building CUDA object k.o\n"
                    "k.cu(2): warning: from the host compiler\n"
                    "fastcuda-status 3 3 0: CICC compute_80 /s/l.cu\n") ==
        "Building CUDA object k.o\nk.cu(2): warning: from the host compiler\n");
  CHECK(filter.Finish().empty());
}

TEST_CASE("under make, a build with nothing to do shows nothing") {
  ObjectLineFilter filter;
  CHECK(filter.Read("ninja: Entering directory `/b/fastcuda'\nninja: no work to do.\n").empty());
  CHECK(filter.Finish().empty());
}

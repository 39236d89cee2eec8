#include <doctest/doctest.h>

#include "src/nvcc/indirect_inputs.h"
#include "tests/test_support.h"

using namespace fastcuda;
using fastcuda::testing::FakeFileSystem;

TEST_CASE("the host compiler's response files, nested ones too, and a -ccbin script are its inputs") {
  FakeFileSystem fs{{"/b/host.rsp", "-O2 @more.rsp"},
                    {"/b/more.rsp", "-fno-inline @host.rsp"},
                    {"/b/tools/wrap.sh", "#!/bin/sh"}};
  Step compile{
      StepKind::kHostCompile, "", {"tools/wrap.sh", "-c", "@host.rsp", "@missing.rsp", "x.cpp"}, {}, {}};
  CHECK(IndirectInputs(compile, "/b", fs) ==
        std::vector<std::string>{"/b/host.rsp", "/b/more.rsp", "tools/wrap.sh"});
  // A program found on PATH is no path; nvcc's own tools are not the host compiler.
  Step preprocess{StepKind::kHostPreprocess, "", {"g++", "-E", "x.cu"}, {}, {}};
  CHECK(IndirectInputs(preprocess, "/b", fs).empty());
  Step cicc{StepKind::kCicc, "", {"/b/tools/wrap.sh", "x.ii"}, {}, {}};
  CHECK(IndirectInputs(cicc, "/b", fs).empty());
}

TEST_CASE("nvlink's libraries: the first libNAME.a of the -L directories, in their order") {
  FakeFileSystem fs{{"/b/lib/libdev.a", ""},
                    {"/cuda/lib/libdev.a", ""},
                    {"/cuda/lib/libcudadevrt.a", ""},
                    {"/b/other/libextra.a", ""}};
  std::vector<std::string> argv = {"nvlink",
                                   "--arch=sm_80",
                                   "-Llib",
                                   "-ldev",
                                   "-L/cuda/lib",
                                   "m.o",
                                   "-lcudadevrt",
                                   "-lnone",
                                   "--library",
                                   "extra",
                                   "-L",
                                   "/nowhere",
                                   "--library-path=/b/other",
                                   "-o",
                                   "x.cubin"};
  CHECK(LinkedLibraries(argv, "/b", fs) ==
        std::vector<std::string>{"lib/libdev.a", "/cuda/lib/libcudadevrt.a", "/b/other/libextra.a"});
  Step link{StepKind::kNvlink, "", argv, {}, {}};
  CHECK(IndirectInputs(link, "/b", fs) == LinkedLibraries(argv, "/b", fs));
}

TEST_CASE("preprocessed host code whose assembly reads another file") {
  CHECK(AssemblesOtherFiles("asm(\".section .rodata\\n.incbin \\\"data.bin\\\"\\n.previous\");"));
  CHECK(AssemblesOtherFiles("__asm__(\"\\t.INCBIN \\\"\" BLOB_PATH \"\\\"\");"));
  CHECK(AssemblesOtherFiles("asm(\".include \\\"macros.s\\\"\");"));
  CHECK_FALSE(AssemblesOtherFiles("# 1 \"k.cu\"\nint incbin = 0; // included\n"));
  CHECK_FALSE(AssemblesOtherFiles("asm(\".incbinary\");"));
}

#include <doctest/doctest.h>

#include "src/nvcc/ptx_line_table.h"

using namespace fastcuda;

TEST_CASE("the files a PTX's line table names, as cicc writes them with -G") {
  // From `nvcc -G -arch=sm_80 -keep` of a kernel that calls a header's device function.
  const char* ptx = R"(.visible .entry _Z1kPi(
	.param .u64 _Z1kPi_param_0
)
{
	.loc	2 2 0
	ret;
}
	.file	1 "/tmp/gtest/h.cuh"
	.file	2 "/tmp/gtest/a.cu"
	.file	3 "/src/with \"quote\" and \\ backslash.cu", 1733234567, 120
)";
  CHECK(PtxLineTableFiles(ptx) == std::vector<std::string>{"/tmp/gtest/h.cuh", "/tmp/gtest/a.cu",
                                                           "/src/with \"quote\" and \\ backslash.cu"});
  CHECK(PtxLineTableFiles("\t.loc 1 5 0\n// .file 1 \"commented.cu\"\n").empty());
}

TEST_CASE("line information in each spelling nvcc gives cicc and ptxas") {
  for (const char* flag :
       {"--generate-line-info", "-generate-line-info", "-lineinfo", "--device-debug", "-g", "-G"}) {
    CHECK_MESSAGE(WritesLineInformation({"ptxas", "-arch=sm_80", flag, "a.ptx", "-o", "a.cubin"}), flag);
  }
  CHECK_FALSE(WritesLineInformation({"ptxas", "-arch=sm_80", "-m64", "a.ptx", "-o", "a.cubin"}));
  CHECK_FALSE(WritesLineInformation({"ptxas", "-arch=sm_80", "a-g.ptx", "-o", "lineinfo.cubin"}));
}

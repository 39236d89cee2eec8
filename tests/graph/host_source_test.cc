#include "src/graph/host_source.h"

#include <doctest/doctest.h>

namespace fastcuda {
namespace {

TEST_CASE("device bodies in #if 0 blocks are blanked, line for line") {
  std::string before =
      "# 2 \"k.cu\"\n"
      "void k(float *x) ;\n"
      "#if 0\n"
      "# 2\n"
      "{ (x[0]) = (1.0F); } \n"
      "#endif\n"
      "# 3 \"k.cu\"\n"
      "int host() { return 1; }\n";
  std::string after = before;
  after.replace(after.find("1.0F"), 4, "2.5F");
  std::optional<std::string> blanked = BlankDisabledCode(before);
  REQUIRE(blanked);
  CHECK(*blanked ==
        "# 2 \"k.cu\"\nvoid k(float *x) ;\n#if 0\n\n\n#endif\n# 3 \"k.cu\"\nint host() { return 1; }\n");
  CHECK(BlankDisabledCode(after) == blanked);  // a device edit leaves the host source alone
  std::string host_edit = before;
  host_edit.replace(host_edit.find("return 1"), 8, "return 2");
  CHECK(BlankDisabledCode(host_edit) != blanked);
}

TEST_CASE("conditionals inside a disabled block are counted, code after it is kept") {
  std::string text =
      "#if 0\n#ifdef X\nint a;\n#endif\nint b;\n#endif\nint c;\n#if 1\nint d;\n#endif\n#if 0\nint e;";
  CHECK(BlankDisabledCode(text) == "#if 0\n\n\n\n\n#endif\nint c;\n#if 1\nint d;\n#endif\n#if 0\n");
}

TEST_CASE("an #if 0 block with live code after #else or #elif leaves the text to the caller") {
  CHECK_FALSE(BlankDisabledCode("#if 0\nint a;\n#else\nint b;\n#endif\n"));
  CHECK_FALSE(BlankDisabledCode("#if 0\nint a;\n#elif X\nint b;\n#endif\n"));
  CHECK(BlankDisabledCode("#if 0\n#if X\n#else\n#endif\n#endif\n") == "#if 0\n\n\n\n#endif\n");
}

TEST_CASE("a raw string literal leaves the text to the caller") {
  CHECK_FALSE(BlankDisabledCode("const char *s = R\"x(\n#if 0\n)x\";\n#endif\n"));
  CHECK(BlankDisabledCode("const char *s = \"R(\";\n"));
}

TEST_CASE("a host source from another run's cache entry includes the stub by this run's name") {
  // The end of cudafe++'s output, as `sccache nvcc` stored it.
  const std::string stored =
      "static const char *s = \"x_0.cudafe1.stub.c\";\n"
      "# 1 \"x_0.cudafe1.stub.c\"\n"
      "#define _NV_ANON_NAMESPACE _GLOBAL__N__64ff562f_6_k_cu_a6da0ba9_14849\n"
      "# 1 \"x_0.cudafe1.stub.c\"\n"
      "#include \"x_0.cudafe1.stub.c\"\n"
      "# 1 \"x_0.cudafe1.stub.c\"\n"
      "#undef _NV_ANON_NAMESPACE\n";
  std::optional<std::string> restored = RestoreStubName(stored, "k.cudafe1.stub.c");
  REQUIRE(restored);
  CHECK(*restored ==
        "static const char *s = \"x_0.cudafe1.stub.c\";\n"  // code, not a directive: left as it is
        "# 1 \"k.cudafe1.stub.c\"\n"
        "#define _NV_ANON_NAMESPACE _GLOBAL__N__64ff562f_6_k_cu_a6da0ba9_14849\n"
        "# 1 \"k.cudafe1.stub.c\"\n"
        "#include \"k.cudafe1.stub.c\"\n"
        "# 1 \"k.cudafe1.stub.c\"\n"
        "#undef _NV_ANON_NAMESPACE\n");
  CHECK_FALSE(RestoreStubName(*restored, "k.cudafe1.stub.c"));  // already this run's: left alone
  CHECK_FALSE(RestoreStubName("int host();\n", "k.cudafe1.stub.c"));
}

}  // namespace
}  // namespace fastcuda

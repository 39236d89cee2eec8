#include <doctest/doctest.h>

#include "src/plan/tu_record.h"

using namespace fastcuda;

TEST_CASE("CMake's command minus its depfile options is the compile database's command") {
  std::vector<std::string> launched = {"nvcc", "-DX", "-MD", "-MT", "obj/a.o", "-MF", "obj/a.o.d",
                                       "-x", "cu", "-c", "a.cu", "-o", "obj/a.o"};
  CHECK(WithoutDepfileOptions(launched) ==
        std::vector<std::string>{"nvcc", "-DX", "-x", "cu", "-c", "a.cu", "-o", "obj/a.o"});
  CHECK(WithoutDepfileOptions({"nvcc", "-MMD", "--dependency-output=a.d", "--dependency-target-name",
                               "t", "-c", "a.cu"}) == std::vector<std::string>{"nvcc", "-c", "a.cu"});
}

TEST_CASE("records round-trip; anything else is not a record") {
  TuRecord record{"/build", {"nvcc", "-c", "a b.cu"}, {"/w/a.cpp4.ii.deps"}};
  std::optional<TuRecord> back = ParseTuRecord(FormatTuRecord(record));
  REQUIRE(back);
  CHECK(back->cwd == record.cwd);
  CHECK(back->command == record.command);
  CHECK(back->depfiles == record.depfiles);
  CHECK_FALSE(ParseTuRecord("{}"));
  CHECK_FALSE(ParseTuRecord("not json"));
}

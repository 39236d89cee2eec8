#include <doctest/doctest.h>

#include "src/plan/tu_record.h"

using namespace fastcuda;

TEST_CASE("records round-trip; anything else is not a record") {
  TuRecord record{
      "/build",          {"nvcc", "-c", "a b.cu"}, {"/w/a.cpp4.ii.deps"},   {"/w/capture/step0-1f"},
      "/w/cache-result", "/w/cache-object.deps",   {"/w/a.cubin", "/b/a.o"}};
  std::optional<TuRecord> back = ParseTuRecord(FormatTuRecord(record));
  REQUIRE(back);
  CHECK(back->cwd == record.cwd);
  CHECK(back->command == record.command);
  CHECK(back->depfiles == record.depfiles);
  CHECK(back->captures == record.captures);
  CHECK(back->cache_result == record.cache_result);
  CHECK(back->cache_depfile == record.cache_depfile);
  CHECK(back->landmarks == record.landmarks);
  CHECK(
      ParseTuRecord(R"({"cwd": "/b", "command": [], "depfiles": [], "captures": []})")->cache_result.empty());
  CHECK_FALSE(ParseTuRecord("{}"));
  CHECK_FALSE(ParseTuRecord("not json"));
}

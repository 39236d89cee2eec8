#include <doctest/doctest.h>

#include <algorithm>

#include "src/plan/tu_record.h"

using namespace fastcuda;

namespace {

TuRecord Record(const std::string& cwd) {
  return {cwd,
          TuCommandHash({"nvcc", "-c", "a b.cu"}),
          {"/w/a.cpp4.ii.deps"},
          {"/w/capture/step0-1f"},
          "/w/cache-result",
          "/w/cache-object.deps",
          {"/w/a.cubin", "/b/a.o"}};
}

}  // namespace

TEST_CASE("records round-trip, each found by its key alone; anything else is none") {
  TuRecord first = Record("/build"), second = Record("/other");
  // Keys of any bytes: a line break, a tab, a key that ends another.
  const std::string odd_key = "a\nb\t.cu.o-1\n\xff";
  std::string text = FormatTuRecords({{"a.cu.o-12", first}, {odd_key, second}, {"xa.cu.o-12", Record("/x")}});
  CHECK(std::count(text.begin(), text.end(), '\n') == 3);
  std::optional<TuRecord> back = FindTuRecord(text, "a.cu.o-12");
  REQUIRE(back);
  CHECK(back->cwd == first.cwd);
  CHECK(back->command_hash == first.command_hash);
  CHECK(back->depfiles == first.depfiles);
  CHECK(back->captures == first.captures);
  CHECK(back->cache_result == first.cache_result);
  CHECK(back->cache_depfile == first.cache_depfile);
  CHECK(back->landmarks == first.landmarks);
  REQUIRE(FindTuRecord(text, odd_key));
  CHECK(FindTuRecord(text, odd_key)->cwd == "/other");
  CHECK(FindTuRecord(text, "xa.cu.o-12")->cwd == "/x");
  CHECK_FALSE(FindTuRecord(text, "cu.o-12"));
  CHECK_FALSE(FindTuRecord(text, "b.cu.o-12"));
  CHECK_FALSE(FindTuRecord("\"k\"\t{}\n", "k"));
  CHECK_FALSE(FindTuRecord("not records", "k"));
}

TEST_CASE("a command's hash tells commands apart, word boundaries too") {
  CHECK(TuCommandHash({"nvcc", "-c", "a.cu"}) == TuCommandHash({"nvcc", "-c", "a.cu"}));
  CHECK(TuCommandHash({"nvcc", "-c", "a.cu"}) != TuCommandHash({"nvcc", "-c a.cu"}));
  CHECK(TuCommandHash({"nvcc", "-c", "a.cu"}) != TuCommandHash({"nvcc", "-c", "b.cu"}));
}

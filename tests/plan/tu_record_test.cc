#include <doctest/doctest.h>

#include <algorithm>

#include "src/plan/tu_record.h"

using namespace fastcuda;

namespace {

TuRecord Record(const std::string& cwd, const std::string& work_dir) {
  return {cwd,
          TuCommandHash({"nvcc", "-c", "a b.cu"}),
          {work_dir + "/a.cpp4.ii.deps"},
          "/src/a b.cu",
          {work_dir + "/capture/step0-1f"},
          work_dir + "/cache-result",
          "",
          {work_dir + "/a.cubin", "/b/a.o"}};
}

}  // namespace

TEST_CASE("records round-trip, each found by its work dir alone; anything else is none") {
  const std::string work = "/g/tu/a.cu.o-12";
  // Names of any bytes: a line break, a tab, a name that ends another.
  const std::string odd = "/g/tu/a\nb\t.cu.o-1\n\xff", longer = "/g/tu/xa.cu.o-12";
  TuRecord first = Record("/build", work);
  std::string text =
      FormatTuRecords({{work, first}, {odd, Record("/other", odd)}, {longer, Record("/x", longer)}});
  CHECK(std::count(text.begin(), text.end(), '\n') == 3);
  CHECK(text.find(work + "/") == std::string::npos);  // its paths are short on the line
  std::optional<TuRecord> back = FindTuRecord(text, work);
  REQUIRE(back);
  CHECK(back->cwd == first.cwd);
  CHECK(back->command_hash == first.command_hash);
  CHECK(back->depfiles == first.depfiles);
  CHECK(back->source == first.source);
  CHECK(back->captures == first.captures);
  CHECK(back->cache_result == first.cache_result);
  CHECK(back->cache_depfile.empty());
  CHECK(back->landmarks == first.landmarks);
  REQUIRE(FindTuRecord(text, odd));
  CHECK(FindTuRecord(text, odd)->cwd == "/other");
  CHECK(FindTuRecord(text, odd)->depfiles == std::vector<std::string>{odd + "/a.cpp4.ii.deps"});
  CHECK(FindTuRecord(text, longer)->cwd == "/x");
  CHECK(FindTuRecord(text, "/elsewhere/a.cu.o-12")->cwd ==
        "/build");  // the graph's TU root has one name each
  CHECK_FALSE(FindTuRecord(text, "/g/tu/cu.o-12"));
  CHECK_FALSE(FindTuRecord(text, "/g/tu/b.cu.o-12"));
  CHECK_FALSE(FindTuRecord("\"k\"\t{}\n", "/g/tu/k"));
  CHECK_FALSE(FindTuRecord("not records", "/g/tu/k"));
}

TEST_CASE("a command's hash tells commands apart, word boundaries too") {
  CHECK(TuCommandHash({"nvcc", "-c", "a.cu"}) == TuCommandHash({"nvcc", "-c", "a.cu"}));
  CHECK(TuCommandHash({"nvcc", "-c", "a.cu"}) != TuCommandHash({"nvcc", "-c a.cu"}));
  CHECK(TuCommandHash({"nvcc", "-c", "a.cu"}) != TuCommandHash({"nvcc", "-c", "b.cu"}));
}

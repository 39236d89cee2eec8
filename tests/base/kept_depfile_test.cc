#include <doctest/doctest.h>

#include "src/base/kept_depfile.h"
#include "tests/test_support.h"

using namespace fastcuda;
using fastcuda::testing::FakeFileSystem;

namespace {

const std::vector<std::string> kHeaders = {"/inc/a.h", "/cuda/include/cuda_runtime.h"};

Depfile Written(const std::string& source, std::vector<std::string> headers = kHeaders) {
  headers.insert(headers.begin(), source);
  return {{"k.ii"}, headers};
}

}  // namespace

TEST_CASE("kept depfiles of one header list share it, and take no block of their own") {
  FakeFileSystem disk;
  KeepDepfile(disk, "/g/tu/a-1/a.cpp4.ii.deps", Written("/src/a.cu"), "/src/a.cu", false);
  KeepDepfile(disk, "/g/tu/b-2/b.cpp4.ii.deps", Written("/src/b.cu"), "/src/b.cu", false);
  CHECK(disk.Read("/g/tu/a-1/a.cpp4.ii.deps") == "");
  CHECK(disk.FilesIn(SharedHeadersDir("/g/tu/a-1/a.cpp4.ii.deps")).size() == 1);
  CHECK(SharedHeadersDir("/g/tu/b-2/b.cpp4.ii.deps") == "/g/tu/fastcuda-headers");
  std::vector<std::string> a = {"/src/a.cu", "/inc/a.h", "/cuda/include/cuda_runtime.h"};
  CHECK(KeptDependencies(disk, "/g/tu/a-1/a.cpp4.ii.deps", "/src/a.cu") == a);
  CHECK(DependenciesOfDepfiles({"a-1/a.cpp4.ii.deps"}, "/g/tu", disk, "/src/a.cu") == a);

  // Its list gone (removed by hand): nothing to trust.
  for (const std::string& list : disk.FilesIn("/g/tu/fastcuda-headers")) disk.Remove(list);
  CHECK_FALSE(KeptDependencies(disk, "/g/tu/a-1/a.cpp4.ii.deps", "/src/a.cu"));
  CHECK_FALSE(KeptDependencies(disk, "/g/tu/a-1/none.deps", "/src/a.cu"));
}

TEST_CASE("a kept depfile that comes out the same keeps its mtime where asked, else is new") {
  FakeFileSystem disk;
  const std::string kept = "/g/tu/a-1/a.cpp1.ii.deps";
  KeepDepfile(disk, kept, Written("a.cu"), "a.cu", false);
  auto first = disk.MTime(kept);
  KeepDepfile(disk, kept, Written("a.cu"), "a.cu", /*only_if_changed=*/true);
  CHECK(disk.MTime(kept) == first);
  KeepDepfile(disk, kept, Written("a.cu"), "a.cu", false);
  CHECK(disk.MTime(kept) != first);
  first = disk.MTime(kept);
  KeepDepfile(disk, kept, Written("a.cu", {"/inc/b.h"}), "a.cu", true);
  CHECK(disk.MTime(kept) != first);
  CHECK(KeptDependencies(disk, kept, "a.cu") == std::vector<std::string>{"a.cu", "/inc/b.h"});
}

TEST_CASE(
    "a kept depfile stays whole where its first dependency is not the source, or nothing keeps attributes") {
  FakeFileSystem disk;
  KeepDepfile(disk, "/g/tu/a-1/a.deps", Written("/src/other.cu"), "/src/a.cu", false);
  CHECK(disk.Read("/g/tu/a-1/a.deps") != "");
  CHECK(KeptDependencies(disk, "/g/tu/a-1/a.deps", "/src/a.cu") ==
        std::vector<std::string>{"/src/other.cu", "/inc/a.h", "/cuda/include/cuda_runtime.h"});
  KeepDepfile(disk, "/g/tu/a-1/b.deps", Written("/src/a.cu"), "",
              false);  // the whole-call cache's tool reads it
  CHECK(disk.Read("/g/tu/a-1/b.deps") != "");
  FakeFileSystem plain;
  plain.keeps_attributes = false;
  KeepDepfile(plain, "/g/tu/a-1/a.deps", Written("/src/a.cu"), "/src/a.cu", false);
  CHECK(plain.Read("/g/tu/a-1/a.deps") != "");
  CHECK(KeptDependencies(plain, "/g/tu/a-1/a.deps", "/src/a.cu")->size() == 3);
  // None: an empty file, with no list.
  KeepDepfile(disk, "/g/tu/a-1/a.deps", Depfile{}, "/src/a.cu", false);
  CHECK(disk.Read("/g/tu/a-1/a.deps") == "");
  CHECK(KeptDependencies(disk, "/g/tu/a-1/a.deps", "/src/a.cu") == std::vector<std::string>{});
}

TEST_CASE("the header lists that no kept depfile names are the ones to remove") {
  FakeFileSystem disk;
  KeepDepfile(disk, "/g/tu/a-1/a.deps", Written("/src/a.cu"), "/src/a.cu", false);
  KeepDepfile(disk, "/g/tu/a-1/a.deps", Written("/src/a.cu", {"/inc/new.h"}), "/src/a.cu", false);
  KeepDepfile(disk, "/g/tu/b-2/b.deps", Written("/src/b.cu"), "", false);  // whole: names none
  REQUIRE(disk.FilesIn("/g/tu/fastcuda-headers").size() == 2);
  std::vector<std::string> unnamed = UnnamedHeaderLists(disk, {"/g/tu/a-1/a.deps", "/g/tu/b-2/b.deps"});
  REQUIRE(unnamed.size() == 1);
  disk.Remove(unnamed.front());
  CHECK(KeptDependencies(disk, "/g/tu/a-1/a.deps", "/src/a.cu") ==
        std::vector<std::string>{"/src/a.cu", "/inc/new.h"});
  CHECK(UnnamedHeaderLists(disk, {"/g/tu/a-1/a.deps"}).empty());
}

#include "ninja-gen/manifest_rewrite.h"

#include <doctest/doctest.h>

#include <map>
#include <set>
#include <string>

#include "ninja-gen/manifest_parser.h"
#include "tests/test_support.h"

using namespace fastcuda;
using fastcuda::testing::FakeFileSystem;

namespace {

const std::string kRules =
    "rule cc\n"
    "  command = cc -c $in -o $out\n"
    "rule nvcc\n"
    "  command = nvcc -c $in -o $out\n"
    "  deps = gcc\n"
    "  depfile = $out.d\n";

/// The edge of `manifest` that makes `output`.
size_t EdgeMaking(const Manifest& manifest, const std::string& output) {
  for (size_t i = 0; i < manifest.edges.size(); ++i) {
    if (manifest.edges[i].outputs.front() == output) return i;
  }
  throw std::logic_error("no edge makes " + output);
}

/// The files of `top` (build.ninja) with the edge making k.o cut out and
/// `appended` added, the `default` statements `defaults` cut too.
std::map<std::string, std::string> CutKernel(const std::string& top, const std::string& appended,
                                             std::set<size_t> defaults = {}) {
  FakeFileSystem fs{{"build.ninja", top}};
  Manifest manifest = ReadManifest(fs, "build.ninja");
  return CutManifest(manifest, {{EdgeMaking(manifest, "k.o")},
                                ".fastcuda/build.ninja",
                                ".fastcuda/manifest",
                                appended,
                                std::move(defaults)});
}

}  // namespace

TEST_CASE("cutting nvcc edges out of a manifest keeps every other byte and appends the steps") {
  const std::string top = "# generated\n" + kRules +
                          "build a.o: cc a.c\n"
                          "build k.o: nvcc k.cu\n"
                          "  pool = console\n"
                          "build app: cc a.o k.o\n"
                          "default app\n";
  std::map<std::string, std::string> files = CutKernel(top, "subninja .fastcuda/steps.ninja\n");
  REQUIRE(files.size() == 1);
  CHECK(files.at(".fastcuda/build.ninja") == "# generated\n" + kRules +
                                                 "build a.o: cc a.c\n"
                                                 "build app: cc a.o k.o\n"
                                                 "default app\n"
                                                 "subninja .fastcuda/steps.ninja\n");
}

TEST_CASE(
    "a default statement that names a cut edge's output is cut with it, for the appended text to name") {
  const std::string top = kRules +
                          "build a.o: cc a.c\n"
                          "build k.o: nvcc k.cu\n"
                          "default k.o\n"
                          "default a.o\n";
  CHECK(CutKernel(top, "subninja .fastcuda/steps.ninja\ndefault k.o\n", {0}).at(".fastcuda/build.ninja") ==
        kRules +
            "build a.o: cc a.c\n"
            "default a.o\n"
            "subninja .fastcuda/steps.ninja\n"
            "default k.o\n");
}

TEST_CASE(
    "a cut edge in an included file: that file and its includers are copied, the rest named as they are") {
  std::map<std::string, std::string> texts = {
      {"build.ninja",
       "include rules.ninja\nsubninja lib/lib.ninja\nsubninja app/app.ninja\nbuild all: phony lib\n"},
      {"rules.ninja", kRules},
      {"lib/lib.ninja", "build lib: phony k.o\ninclude lib/objects.ninja\n"},
      {"lib/objects.ninja", "build k.o: nvcc k.cu\nbuild c.o: cc c.c\n"},
      {"app/app.ninja", "build app: cc c.o\n"}};
  Manifest manifest = ReadManifest(FakeFileSystem(texts), "build.ninja");
  ManifestCut cut{{EdgeMaking(manifest, "k.o")}, ".f/build.ninja", ".f/m", ""};
  std::map<std::string, std::string> files = CutManifest(manifest, cut);
  REQUIRE(files.size() == 3);
  CHECK(files.at(".f/build.ninja") ==
        "include rules.ninja\nsubninja .f/m/2-lib.ninja\nsubninja app/app.ninja\nbuild all: phony lib\n");
  CHECK(files.at(".f/m/2-lib.ninja") == "build lib: phony k.o\ninclude .f/m/3-objects.ninja\n");
  CHECK(files.at(".f/m/3-objects.ninja") == "build c.o: cc c.c\n");
  // The copies read back as the original did, less the cut edge.
  texts.insert(files.begin(), files.end());
  Manifest rewritten = ReadManifest(FakeFileSystem(texts), ".f/build.ninja");
  CHECK(rewritten.edges.size() == manifest.edges.size() - 1);
  CHECK_THROWS(EdgeMaking(rewritten, "k.o"));
  CHECK(EvaluateEdgeVariable(rewritten, rewritten.edges[EdgeMaking(rewritten, "c.o")], "command") ==
        "cc -c c.c -o c.o");
}

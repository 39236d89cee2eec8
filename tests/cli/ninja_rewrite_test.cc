#include "src/cli/ninja_rewrite.h"

#include <doctest/doctest.h>

#include <string>

#include "ninja-gen/manifest_parser.h"
#include "src/base/directory_file_system.h"
#include "src/plan/graph_dir.h"
#include "tests/test_support.h"

using namespace fastcuda;
using fastcuda::testing::FakeFileSystem;

namespace {

/// The NvccEdge of the one edge making `output` in a manifest of `text`.
NvccEdge EdgeOf(const std::string& text, const std::string& output) {
  Manifest manifest = ReadManifest(FakeFileSystem{{"build.ninja", text}}, "build.ninja");
  for (const ManifestEdge& edge : manifest.edges) {
    if (edge.outputs.front() == output) return NvccEdgeOf(manifest, edge, "/b");
  }
  throw std::logic_error("no edge makes " + output);
}

// torch.utils.cpp_extension's rule, as it writes it.
const std::string kTorch =
    "nvcc = /usr/local/cuda/bin/nvcc\n"
    "cuda_cflags = -I/x/include -gencode=arch=compute_80,code=sm_80 --compiler-options '-fPIC'\n"
    "rule cuda_compile\n"
    "  depfile = $out.d\n"
    "  deps = gcc\n"
    "  command = $nvcc --generate-dependencies-with-compile --dependency-output $out.d $cuda_cflags -c $in "
    "-o "
    "$out $cuda_post_cflags\n";

}  // namespace

TEST_CASE("an nvcc compile edge becomes a compile entry with what the edge also waits for") {
  NvccEdge nvcc = EdgeOf(kTorch + "build k.cuda.o: cuda_compile /src/k.cu | gen.h || order\n", "k.cuda.o");
  REQUIRE(nvcc.entry);
  const CompileEntry& entry = *nvcc.entry;
  CHECK(entry.directory == "/b");
  CHECK(entry.file == "/src/k.cu");
  CHECK(entry.output == "k.cuda.o");
  CHECK(entry.nvcc.front() == "/usr/local/cuda/bin/nvcc");
  CHECK(entry.nvcc.back() == "k.cuda.o");
  CHECK(entry.launcher.empty());
  CHECK(entry.implicit_inputs == std::vector<std::string>{"gen.h"});
  CHECK(entry.order_only_inputs == std::vector<std::string>{"order"});
  CHECK(entry.ninja_reads_depfile);
}

TEST_CASE(
    "a launcher before nvcc stays the entry's launcher; a depfile without deps is Ninja's to read anew") {
  NvccEdge nvcc = EdgeOf(
      "rule cu\n  command = ccache nvcc -MD -MF $out.d -c $in -o $out\n  depfile = $out.d\nbuild k.o: cu "
      "k.cu\n",
      "k.o");
  REQUIRE(nvcc.entry);
  CHECK(nvcc.entry->launcher == std::vector<std::string>{"ccache"});
  CHECK_FALSE(nvcc.entry->ninja_reads_depfile);
}

TEST_CASE("fastcuda as the edge's launcher is left out: its steps are the edge's now") {
  NvccEdge nvcc = EdgeOf(
      "rule cu\n  command = /opt/bin/fastcuda ccache nvcc -c $in -o $out\nbuild k.o: cu k.cu\n", "k.o");
  REQUIRE(nvcc.entry);
  CHECK(nvcc.entry->launcher == std::vector<std::string>{"ccache"});
  CHECK(nvcc.entry->nvcc.front() == "nvcc");
}

TEST_CASE("edges FastCuda leaves as the generator wrote them, and why") {
  const std::string rules =
      "rule cu\n  command = nvcc -c $in -o $out\n"
      "rule cd\n  command = cd sub && nvcc -c $in -o $out\n"
      "rule rsp\n  command = nvcc @$out.rsp -o $out\n  rspfile = $out.rsp\n  rspfile_content = -c $in\n"
      "rule msvc\n  command = nvcc -c $in -o $out\n  deps = msvc\n"
      "rule link\n  command = nvcc $in -o $out\n"
      "rule dlink\n  command = nvcc -shared -dlink $in -o $out\n"
      "rule cc\n  command = c++ -c $in -o $out\n";
  auto why = [&](const std::string& build, const std::string& output) {
    NvccEdge nvcc = EdgeOf(rules + build, output);
    CHECK_FALSE(nvcc.entry);
    return nvcc.why_kept;
  };
  CHECK(why("build a.o: cc a.cpp\n", "a.o") == "");  // not nvcc: nothing to say
  CHECK(why("build p: phony k.cu\n", "p") == "");
  CHECK(why("build k.o: cd k.cu\n", "k.o") == "its command has shell syntax besides words");
  CHECK(why("build k.o | k.stamp: cu k.cu\n", "k.o") == "the edge has outputs besides one object");
  CHECK(why("build k.o: cu k.cu j.cu\n", "k.o") == "the edge has no single source");
  CHECK(why("build k.o: rsp k.cu\n", "k.o") == "the edge has a response file");
  CHECK(why("build k.o: msvc k.cu\n", "k.o") == "deps = msvc");
  CHECK(why("build app: link k.cu\n", "app") == "no -c, -dc, -ptx, -cubin, -fatbin or -dlink: nvcc links");
  // CMake's device link of a target with one CUDA object (CUDA_SEPARABLE_COMPILATION).
  CHECK(why("build cmake_device_link.o: dlink k.cu.o\n", "cmake_device_link.o") ==
        "a device link compiles no source");
}

TEST_CASE("on fakes: a rewrite is planned in memory, then written whole, fastcuda linked as ninja") {
  fastcuda::testing::FakeIo fake(
      FakeFileSystem({{"/m/build.ninja", "rule cc\n  command = cc -c $in -o $out\nbuild a.o: cc a.c\n"}}));
  const NinjaArguments arguments = ParseNinjaArguments({"-C", "/m"});
  const PlannedRewrite rewrite =
      PlanRewrite(ReadManifest(DirectoryFileSystem(fake.fs, "/m"), "build.ninja"), arguments, fake.io);
  CHECK(fake.fs.files().size() == 1);  // planning writes nothing
  CHECK(rewrite.top == GlobalManifestPath(RewriteDir("/m")));
  REQUIRE(rewrite.copies.contains(rewrite.top));
  CHECK(rewrite.shared_objects.empty());  // no nvcc edge
  WriteRewrite(rewrite, RewriteDir("/m"), fake.fs);
  CHECK(fake.fs.Read(rewrite.top) == rewrite.copies.at(rewrite.top));
  CHECK(fake.fs.Read(RewriteKeyPath(RewriteDir("/m"))) ==
        RewriteKey(arguments, PartOptions(arguments, fake.environment), fake.environment));
  CHECK(fake.fs.Read(NinjaLogSourcePath(RewriteDir("/m"))) == NinjaLogPath("/m"));
  CHECK(fake.fs.links() ==
        std::map<std::string, std::string>{{SelfAsNinjaPath(RewriteDir("/m")), SelfExecutable()}});
  CHECK_FALSE(RewriteNeeded(arguments, fake.io));
  CHECK(fake.runner.ran.empty());  // no nvcc edge: no dryrun, no Ninja asked its version
}

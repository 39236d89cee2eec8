#include <doctest/doctest.h>

#include "ninja-gen/manifest_parser.h"

#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "tests/test_support.h"

using namespace fastcuda;
using fastcuda::testing::FakeFileSystem;

namespace {

/// `text` read as build.ninja, beside the other `files`.
Manifest Read(const std::string& text, std::map<std::string, std::string> files = {}) {
  files["build.ninja"] = text;
  return ReadManifest(FakeFileSystem(std::move(files)), "build.ninja");
}

/// What reading `text` throws: "file:line:column: message".
std::string ErrorOf(const std::string& text, std::map<std::string, std::string> files = {}) {
  try {
    Read(text, std::move(files));
  } catch (const ManifestError& error) {
    return error.what();
  }
  return "no error";
}

/// Every edge's `command`, in reading order.
std::vector<std::string> Commands(const Manifest& manifest) {
  std::vector<std::string> commands;
  for (const ManifestEdge& edge : manifest.edges)
    commands.push_back(EvaluateEdgeVariable(manifest, edge, "command"));
  return commands;
}

/// The files of tests/manifests/NAME, by their path relative to it (how
/// Ninja, run there, names them).
std::map<std::string, std::string> ManifestDir(const std::string& name) {
  std::filesystem::path dir = std::filesystem::path(FASTCUDA_MANIFESTS) / name;
  std::map<std::string, std::string> files;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(dir)) {
    if (!entry.is_regular_file()) continue;
    files[entry.path().lexically_relative(dir).string()] = *RealFileSystem().Read(entry.path().string());
  }
  return files;
}

/// The manifest in tests/manifests/NAME.
Manifest ReadManifestDir(const std::string& name) {
  return ReadManifest(FakeFileSystem(ManifestDir(name)), "build.ninja");
}

/// The text of `span` in its file.
std::string_view TextOf(const Manifest& manifest, const ManifestSpan& span) {
  return std::string_view(manifest.files[span.file].text).substr(span.begin, span.end - span.begin);
}

const char kRuleCc[] = "rule cc\n  command = cc $flags -c $in -o $out\n";

}  // namespace

TEST_CASE("top-level variables are evaluated when defined; later statements see the new value") {
  Manifest manifest = Read(
      "a = 1\n"
      "b = $a.${a}:$a-\n"  // `$name` stops at a dot, not at a dash: `$a-` names `a-`
      "a = 2\n"
      "c = $b.$a\n");
  CHECK(manifest.scopes[0].variables ==
        std::map<std::string, std::string>{{"a", "2"}, {"b", "1.1:"}, {"c", "1.1:.2"}});
  REQUIRE(manifest.assignments.size() == 4);
  CHECK(manifest.assignments[1].value == "1.1:");
  CHECK(TextOf(manifest, manifest.assignments[1].span) == "b = $a.${a}:$a-\n");
}

TEST_CASE("a build line's six lists, canonicalized, and its rule") {
  Manifest manifest = Read(std::string(kRuleCc) +
                           "build o1 ./x/../o2 | io: cc i1 dir//i2 | ii || oo |@ v\n"
                           "build x: phony\n");
  const ManifestEdge& edge = manifest.edges[0];
  CHECK(manifest.rules[edge.rule].name == "cc");
  CHECK(edge.outputs == std::vector<std::string>{"o1", "o2"});
  CHECK(edge.implicit_outputs == std::vector<std::string>{"io"});
  CHECK(edge.inputs == std::vector<std::string>{"i1", "dir/i2"});
  CHECK(edge.implicit_inputs == std::vector<std::string>{"ii"});
  CHECK(edge.order_only_inputs == std::vector<std::string>{"oo"});
  CHECK(edge.validations == std::vector<std::string>{"v"});
  CHECK(manifest.edges[1].rule == kPhonyRule);
  CHECK(EvaluateEdgeVariable(manifest, manifest.edges[1], "command") == "");
}

TEST_CASE("$in and $out: explicit paths only, shell-escaped; $in_newline; verbatim on request") {
  Manifest manifest = Read(
      "rule r\n  command = x $in > $out\n  rspfile = $out.rsp\n  rspfile_content = $in_newline\n"
      "build o$ 1 | imp: r a b$ c | d || e\n");
  const ManifestEdge& edge = manifest.edges[0];
  CHECK(EvaluateEdgeVariable(manifest, edge, "command") == "x a 'b c' > 'o 1'");
  CHECK(EvaluateEdgeVariable(manifest, edge, "rspfile_content") == "a\n'b c'");
  CHECK(EvaluateEdgeVariable(manifest, edge, "rspfile", EdgePathQuoting::kVerbatim) == "o 1.rsp");
}

TEST_CASE("lookup order: edge bindings, then the rule's (in the edge's context), then the scopes") {
  Manifest manifest = Read(
      "flags = -top\n"
      "who = file\n"
      "rule r\n  command = $flags $desc_of_out\n  description = $who built $out\n"
      "build a: r\n  flags = -edge\n"
      "build b: r\n  who = edge\n"
      "build c: r\n  command = overridden\n");
  CHECK(Commands(manifest) == std::vector<std::string>{"-edge ", "-top ", "overridden"});
  CHECK(EvaluateEdgeVariable(manifest, manifest.edges[1], "description") == "edge built b");
  CHECK(EvaluateEdgeVariable(manifest, manifest.edges[2], "description") == "file built c");
}

TEST_CASE("edge bindings are evaluated in the file scope; the paths on their line see them") {
  Manifest manifest = Read("dir = top\n" + std::string(kRuleCc) +
                           "build $dir/$name.o: cc $dir/$name.c\n"
                           "  dir = sub\n"
                           "  name = x\n"
                           "  again = $name$dir$in\n");
  const ManifestEdge& edge = manifest.edges[0];
  CHECK(edge.outputs == std::vector<std::string>{"sub/x.o"});
  CHECK(edge.inputs == std::vector<std::string>{"sub/x.c"});
  // `$name` is not yet set in the file scope, `$dir` is the file's, `$in` nothing.
  CHECK(edge.bindings.at("again") == "top");
}

TEST_CASE("Ninja's quirk: rule bindings see the last value a scope variable gets in the whole manifest") {
  Manifest manifest = Read("flags = -O1\n" + std::string(kRuleCc) +
                           "build a.o: cc a.c\n"
                           "build b.o: cc b.c\n"
                           "  flags = $flags -g\n"
                           "flags = -O3\n");
  CHECK(Commands(manifest) == std::vector<std::string>{"cc -O3 -c a.c -o a.o", "cc -O1 -g -c b.c -o b.o"});
}

TEST_CASE("Ninja's quirk: an edge without bindings sees its scope's variables before its rule's bindings") {
  Manifest manifest = Read(
      "rule r\n  command = from the rule\n  description = rule\n"
      "build a: r\n"
      "build b: r\n  unrelated = 1\n"
      "command = from the scope\n");
  CHECK(Commands(manifest) == std::vector<std::string>{"from the scope", "from the rule"});
}

TEST_CASE("an unwritten rspfile reads as empty, not as the scope's variable") {
  Manifest manifest = Read("rule r\n  command = c\nbuild a: r\n  x = 1\nrspfile = scope\ndepfile = scope\n");
  CHECK(EvaluateEdgeVariable(manifest, manifest.edges[0], "rspfile") == "");
  CHECK(EvaluateEdgeVariable(manifest, manifest.edges[0], "depfile") == "scope");
}

TEST_CASE("include shares the scope; subninja gets a child scope that sees its parent's") {
  std::map<std::string, std::string> files = {
      {"rules.ninja", "rule cc\n  command = cc $flags $in\nflags = -inc\n"},
      {"sub/child.ninja",
       "flags = -child\n"
       "rule cc\n  command = child-cc $flags $top $in\n"
       "build c.o: cc c.c\n  n = 1\n"
       "include sub/inner.ninja\n"},
      // Named relative to where Ninja runs, not to sub/.
      {"sub/inner.ninja", "build i.o: cc i.c\n  n = 1\n"},
  };
  Manifest manifest = Read(
      "top = T\n"
      "include rules.ninja\n"
      "build t.o: cc t.c\n  n = 1\n"
      "subninja sub/child.ninja\n"
      "build u.o: cc u.c\n  n = 1\n",
      files);
  CHECK(Commands(manifest) == std::vector<std::string>{"cc -inc t.c", "child-cc -child T c.c",
                                                       "child-cc -child T i.c", "cc -inc u.c"});
  CHECK(manifest.scopes.size() == 2);
  CHECK(manifest.scopes[0].variables.count("flags"));
  CHECK(manifest.scopes[1].variables.at("flags") == "-child");
  REQUIRE(manifest.includes.size() == 3);
  CHECK(manifest.includes[0].path == "rules.ninja");
  CHECK_FALSE(manifest.includes[0].subninja);
  CHECK(manifest.includes[1].subninja);
  CHECK(manifest.files[manifest.includes[2].file].path == "sub/inner.ninja");
  CHECK(TextOf(manifest, manifest.includes[1].span) == "subninja sub/child.ninja\n");
  CHECK(manifest.edges[2].span.file == manifest.includes[2].file);
}

TEST_CASE("pools: declared with a depth, the built-in console, named by an edge or its rule") {
  Manifest manifest = Read(
      "d = 3\n"
      "pool link\n  depth = $d\n"
      "rule r\n  command = c\n  pool = link\n"
      "build a: r\n"
      "build b: r\n  pool = console\n");
  REQUIRE(manifest.pools.size() == 1);
  CHECK(manifest.pools[0].depth == 3);
  CHECK(EvaluateEdgeVariable(manifest, manifest.edges[0], "pool") == "link");
  CHECK(EvaluateEdgeVariable(manifest, manifest.edges[1], "pool") == "console");
}

TEST_CASE("default names known targets, canonicalized") {
  Manifest manifest = Read("rule r\n  command = c\nbuild out/a: r in\ndefault ./out/a in\n");
  REQUIRE(manifest.defaults.size() == 1);
  CHECK(manifest.defaults[0].targets == std::vector<std::string>{"out/a", "in"});
}

TEST_CASE("a statement's span runs from its keyword to the newline of its last binding") {
  const std::string text = std::string(kRuleCc) +
                           "# before\n"
                           "build a.o: cc a.c\n"
                           "  flags = -g $\n"
                           "      -O2\n"
                           "  # inside\n"
                           "  n = 1\n"
                           "# after\n"
                           "\n"
                           "build b.o: cc b.c\n";
  Manifest manifest = Read(text);
  CHECK(TextOf(manifest, *manifest.rules[1].span) == kRuleCc);
  CHECK(TextOf(manifest, manifest.edges[0].span) ==
        "build a.o: cc a.c\n  flags = -g $\n      -O2\n  # inside\n  n = 1\n");
  CHECK(TextOf(manifest, manifest.edges[1].span) == "build b.o: cc b.c\n");
}

TEST_CASE("cutting a build statement out of the text leaves a manifest with the same other edges") {
  Manifest manifest = ReadManifestDir("tricky");
  for (size_t cut = 0; cut < manifest.edges.size(); ++cut) {
    const ManifestSpan& span = manifest.edges[cut].span;
    std::map<std::string, std::string> files = ManifestDir("tricky");
    const std::string& text = manifest.files[span.file].text;
    files[manifest.files[span.file].path] = text.substr(0, span.begin) + text.substr(span.end);
    // Without its edge, the default's target may be unknown.
    std::string& top = files["build.ninja"];
    top.erase(top.find("default $builddir/a.o\n"));
    std::vector<std::string> expected = Commands(manifest);
    expected.erase(expected.begin() + static_cast<long>(cut));
    CHECK(Commands(ReadManifest(FakeFileSystem(files), "build.ninja")) == expected);
  }
}

TEST_CASE("CRLF line ends read as LF ones") {
  Manifest manifest = Read("x = 1\r\nrule r\r\n  command = c $x $\r\n   $in\r\nbuild a: r b\r\n\r\n");
  CHECK(Commands(manifest) == std::vector<std::string>{"c 1 b"});
  CHECK(TextOf(manifest, manifest.edges[0].span) == "build a: r b\r\n");
}

TEST_CASE("a cycle of rule bindings is an error when evaluated") {
  Manifest manifest = Read("rule r\n  command = $description\n  description = $command\nbuild a: r\n");
  CHECK_THROWS_WITH_AS(EvaluateEdgeVariable(manifest, manifest.edges[0], "command"),
                       "build.ninja:4:1: cycle in rule variables: command -> description -> command",
                       ManifestError);
}

TEST_CASE("errors carry file:line:column and Ninja's message") {
  const std::string rule = "rule r\n  command = c\n";
  CHECK(ErrorOf("foobar") == "build.ninja:1:7: expected '=', got eof");
  CHECK(ErrorOf("x = 3\ny 2") == "build.ninja:2:3: expected '=', got identifier");
  CHECK(ErrorOf("x = $\n $[\n") == "build.ninja:2:2: bad $-escape (literal $ must be written as $$)");
  CHECK(ErrorOf("build\n") == "build.ninja:1:6: expected path");
  CHECK(ErrorOf("build x: y z\n") == "build.ninja:1:10: unknown build rule 'y'");
  CHECK(ErrorOf("build x:: y z\n") == "build.ninja:1:9: expected build command name");
  CHECK(ErrorOf(rule + "build x: r $\n :\n") == "build.ninja:4:2: expected newline, got ':'");
  CHECK(ErrorOf(rule + "build $: r foo\n") ==
        "build.ninja:3:15: expected ':', got newline ($ also escapes ':')");
  CHECK(ErrorOf("rule r\n") == "build.ninja:1:6: expected 'command =' line");
  CHECK(ErrorOf(rule + rule) == "build.ninja:3:6: duplicate rule 'r'");
  CHECK(ErrorOf(rule + "include r.ninja\n", {{"r.ninja", rule}}) == "r.ninja:1:6: duplicate rule 'r'");
  CHECK(ErrorOf("rule %foo\n") == "build.ninja:1:6: expected rule name");
  CHECK(ErrorOf(rule + "  othervar = bar\n") == "build.ninja:3:3: unexpected variable 'othervar'");
  CHECK(ErrorOf("rule r\n  command = c\n  rspfile = x\n") ==
        "build.ninja:1:6: rspfile and rspfile_content need to be both specified");
  CHECK(ErrorOf(rule + "  && bar") == "build.ninja:3:3: expected variable name");
  CHECK(ErrorOf(rule + "  \n  generator = 1\n") == "build.ninja:4:1: unexpected indent");
  CHECK(ErrorOf("\tx = 1\n") == "build.ninja:1:1: tabs are not allowed, use spaces");
  CHECK(ErrorOf("default\n") == "build.ninja:1:8: expected target name");
  CHECK(ErrorOf("default nonexistent\n") == "build.ninja:1:9: unknown target 'nonexistent'");
  CHECK(ErrorOf("default $a\n") == "build.ninja:1:9: empty path");
  CHECK(ErrorOf(rule + "build $a: r $c\n") == "build.ninja:3:7: empty path");
  CHECK(ErrorOf("pool\n") == "build.ninja:1:5: expected pool name");
  CHECK(ErrorOf("pool foo\n") == "build.ninja:1:6: expected 'depth =' line");
  CHECK(ErrorOf("pool foo\n  depth = 4\npool foo\n  depth = 1\n") == "build.ninja:3:6: duplicate pool 'foo'");
  CHECK(ErrorOf("pool console\n  depth = 4\n") == "build.ninja:1:6: duplicate pool 'console'");
  CHECK(ErrorOf("pool foo\n  depth = -1\n") == "build.ninja:2:3: invalid pool depth");
  CHECK(ErrorOf("pool foo\n  bar = 1\n") == "build.ninja:2:3: unexpected variable 'bar'");
  CHECK(ErrorOf("rule r\n  command = c\n  pool = nope\nbuild out: r in\n") ==
        "build.ninja:4:1: unknown pool name 'nope'");
  CHECK(ErrorOf("subninja foo.ninja\n") ==
        "build.ninja:1:10: loading 'foo.ninja': No such file or directory");
  CHECK(ErrorOf("include build.ninja\n") == "build.ninja:1:9: 'build.ninja' includes itself");
  CHECK(ErrorOf(rule + "build a b: r\nbuild b: r\n") == "build.ninja:4:7: multiple rules generate b");
  CHECK(ErrorOf(rule + "build a | ./a: r\n") == "build.ninja:3:11: a is defined as an output multiple times");
  CHECK(ErrorOf(rule + "build a: r\n  dyndep = notin\n") ==
        "build.ninja:3:1: dyndep 'notin' is not an input");
  CHECK(ErrorOf(rule + "build a: r b\n  dyndep = ./b\n") == "no error");
  CHECK(ErrorOf("x = 1 # c\n# c") == "build.ninja:2:1: lexing error");
}

TEST_CASE("PyTorch cpp_extension's manifest") {
  Manifest manifest = ReadManifestDir("pytorch");
  CHECK(
      Commands(manifest) ==
      std::vector<std::string>{
          "c++ -MMD -MF ext.o.d -DTORCH_EXTENSION_NAME=ext -I/x/include -fPIC -std=c++17 -c /src/ext.cpp -o "
          "ext.o ",
          "/usr/local/cuda/bin/nvcc --generate-dependencies-with-compile --dependency-output kernel.cuda.o.d "
          "-DTORCH_EXTENSION_NAME=ext -I/x/include --expt-relaxed-constexpr "
          "-gencode=arch=compute_80,code=sm_80 "
          "--compiler-options '-fPIC' -std=c++17 -c /src/kernel.cu -o kernel.cuda.o ",
          "c++ ext.o kernel.cuda.o -shared -L/x/lib -lc10 -ltorch -o ext.so"});
  CHECK(EvaluateEdgeVariable(manifest, manifest.edges[1], "depfile", EdgePathQuoting::kVerbatim) ==
        "kernel.cuda.o.d");
  CHECK(EvaluateEdgeVariable(manifest, manifest.edges[1], "deps") == "gcc");
  CHECK(manifest.scopes[0].variables.at("ninja_required_version") == "1.3");
  CHECK(manifest.defaults[0].targets == std::vector<std::string>{"ext.so"});
}

TEST_CASE("CMake's Ninja generator: rules in an included file, per-edge DEFINES, INCLUDES and FLAGS") {
  Manifest manifest = ReadManifestDir("cmake");
  REQUIRE(manifest.files.size() == 2);
  CHECK(manifest.files[1].path == "CMakeFiles/rules.ninja");
  const ManifestEdge& cuda = manifest.edges[1];
  CHECK(manifest.rules[cuda.rule].name == "CUDA_COMPILER__kern_unscanned_Release");
  CHECK(cuda.order_only_inputs == std::vector<std::string>{"cmake_object_order_depends_target_kern"});
  CHECK(
      EvaluateEdgeVariable(manifest, cuda, "command") ==
      "/usr/local/cuda/bin/nvcc -forward-unknown-to-host-compiler -DKERN_FAST=1 \"-DNAME=\\\"my kernel\\\"\" "
      "-I/src/include -isystem /usr/local/cuda/include -O3 -DNDEBUG -std=c++17 "
      "\"--generate-code=arch=compute_80,code=[compute_80,sm_80]\" -MD -MT CMakeFiles/kern.dir/src/k.cu.o "
      "-MF CMakeFiles/kern.dir/src/k.cu.o.d -x cu -c /src/k.cu -o CMakeFiles/kern.dir/src/k.cu.o");
  CHECK(EvaluateEdgeVariable(manifest, cuda, "depfile") == "CMakeFiles/kern.dir/src/k.cu.o.d");
  CHECK(EvaluateEdgeVariable(manifest, cuda, "description") ==
        "Building CUDA object CMakeFiles/kern.dir/src/k.cu.o");
  auto regenerate = std::find_if(manifest.edges.begin(), manifest.edges.end(), [](const ManifestEdge& edge) {
    return edge.outputs == std::vector<std::string>{"build.ninja"};
  });
  REQUIRE(regenerate != manifest.edges.end());
  CHECK(EvaluateEdgeVariable(manifest, *regenerate, "generator") == "1");
  CHECK(EvaluateEdgeVariable(manifest, *regenerate, "pool") == "console");
  CHECK(manifest.defaults[0].targets == std::vector<std::string>{"all"});
}

TEST_CASE("Meson's manifest: one-space indents, escaped spaces in values, phony with a trailing space") {
  Manifest manifest = ReadManifestDir("meson");
  const ManifestEdge& cuda = manifest.edges[1];
  CHECK(cuda.inputs == std::vector<std::string>{"../kernel.cu"});
  CHECK(EvaluateEdgeVariable(manifest, cuda, "command") ==
        "/usr/local/cuda/bin/nvcc -Iapp.p -I. -I.. '-I../my dir' -O2 -g '-DNAME=\"x y\"' -o "
        "app.p/kernel.cu.o -c "
        "../kernel.cu");
  auto test = std::find_if(manifest.edges.begin(), manifest.edges.end(), [](const ManifestEdge& edge) {
    return edge.outputs == std::vector<std::string>{"meson-internal__test"};
  });
  REQUIRE(test != manifest.edges.end());
  CHECK(EvaluateEdgeVariable(manifest, *test, "description") == "Running all tests.");
  CHECK(manifest.edges.back().outputs ==
        std::vector<std::string>{"../meson.build", "meson-private/coredata.dat"});
}

TEST_CASE(
    "the tricky manifest: what Ninja 1.11 and 1.13 print for it (tests/integration/manifest_reader.sh)") {
  Manifest manifest = ReadManifestDir("tricky");
  std::vector<std::string> commands = Commands(manifest);
  CHECK(commands == std::vector<std::string>{
                        "cc -O3 -c a.c -o out/a.o",
                        "cc -O3 -c 'src/it'\\''s here.c' -o 'out/with space.o'",
                        "cc -O1 -g -c b.c -o out/sub/b.o",
                        "cc -O3 -c c.c -o out/c.o",
                        "echo lines: one.txt\ntwo.txt > lines.txt",
                        "",
                        "cat a.txt b.txt > cat.out && echo done $HOME :x top.-O3",
                        "cc -Ocrlf -c crlf.cextra.c -o crlf.o",
                        "inc a.c inc.out -O3",
                        "cc -O3 -c inc.c -o inc2.out",
                        "child-cc -Ochild child.c child.o top",
                        "cat child.c > child2.o && echo done $HOME :x child-root.-Ochild",
                        "the scope's own command, for edges without bindings",
                    });
  CHECK(manifest.edges[2].bindings.at("late") == "");
}

TEST_CASE("root targets: what Ninja builds without defaults, every output no edge reads") {
  Manifest manifest = Read(
      "rule cc\n  command = cc $in -o $out\n"
      "build a.o | a.extra: cc a.c\n"
      "build b.o: cc b.c || gen.h\n"
      "build gen.h: cc gen.in\n"
      "build lib.a: cc a.o b.o\n"
      "build tool: cc t.c |@ a.o\n"
      "build all: phony lib.a\n");
  CHECK(RootTargets(manifest) == std::vector<std::string>{"a.extra", "tool", "all"});
  CHECK(DefaultTargets(manifest) == RootTargets(manifest));
  Manifest with_defaults = Read(
      "rule cc\n  command = cc $in -o $out\nbuild a.o: cc a.c\nbuild b.o: cc b.c\n"
      "default b.o\ndefault a.o\n");
  CHECK(DefaultTargets(with_defaults) == std::vector<std::string>{"b.o", "a.o"});
}

TEST_CASE("needed files: the targets and the inputs of every edge on the way, order-only ones too") {
  Manifest manifest = Read(
      "rule cc\n  command = cc $in -o $out\n"
      "build a.o: cc a.c\n"
      "build b.o: cc b.c || gen.h\n"
      "build gen.h: cc gen.in\n"
      "build other.o: cc other.c\n"
      "build all: phony a.o b.o\n");
  std::unordered_set<std::string> needed = Needed(manifest, {"all"});
  CHECK(needed == std::unordered_set<std::string>{"all", "a.o", "a.c", "b.o", "b.c", "gen.h", "gen.in"});
  CHECK(Needed(manifest, {"other.o"}) == std::unordered_set<std::string>{"other.o", "other.c"});
}

#include <doctest/doctest.h>

#include "ninja-gen/ninja_writer.h"

#include <stdexcept>

using namespace fastcuda;

TEST_CASE("paths escape $, space and colon; values escape $ only") {
  CHECK(EscapeNinjaPath("a b:c$d") == "a$ b$:c$$d");
  CHECK(EscapeNinjaValue("a b:c$d") == "a b:c$$d");
  CHECK_THROWS_AS(EscapeNinjaPath("pipe|in/path.o"), UnnameablePath);
}

TEST_CASE("a build statement with every kind of input and output") {
  NinjaWriter writer;
  writer.Build({{"out 1"},
                {"imp.out"},
                "CICC",
                {"in:1"},
                {"imp.in"},
                {"oo"},
                {{"cmd", "echo $x"}},
                {{"argv", "${w}/x"}}});
  CHECK(writer.text() ==
        "build out$ 1 | imp.out: CICC in$:1 | imp.in || oo\n"
        "  cmd = echo $$x\n"
        "  argv = ${w}/x\n");
}

TEST_CASE("rules, pools, variables, defaults") {
  NinjaWriter writer;
  writer.Variable("builddir", "/w $x");
  writer.Pool("fastcuda_cicc", 4);
  writer.Rule({"CICC", {{"command", "$cmd"}, {"pool", "fastcuda_cicc"}}});
  writer.Default({"a.o", "b c.o"});
  CHECK(writer.text() ==
        "builddir = /w $$x\n"
        "pool fastcuda_cicc\n  depth = 4\n"
        "rule CICC\n  command = $cmd\n  pool = fastcuda_cicc\n"
        "default a.o b$ c.o\n");
}

TEST_CASE("paths through variables: the longest bound prefix names a path, escaped after it") {
  NinjaWriter writer;
  writer.PathVariable("c", "/b d");
  writer.PathVariable("w", "/b d/tu/k");
  writer.NamePathsThrough("env", "/b d/env/e.env");
  writer.Build({{"/b d/tu/k/k.ii"},
                {},
                "CPP",
                {"/b d/k.cu", "/b dx/k.cu"},
                {"/b d/env/e.env", "/b d/tu/k"},
                {},
                {},
                {}});
  CHECK(writer.text() ==
        "c = /b d\n"
        "w = /b d/tu/k\n"
        "build ${w}/k.ii: CPP ${c}/k.cu /b$ dx/k.cu | ${env} ${w}\n");
  CHECK_THROWS_AS(writer.Build({{"/b d/a|b"}, {}, "CPP", {}, {}, {}, {}, {}}), UnnameablePath);
}

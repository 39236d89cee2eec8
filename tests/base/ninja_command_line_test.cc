#include <doctest/doctest.h>

#include "src/base/ninja_command_line.h"

using namespace fastcuda;

TEST_CASE("a Ninja command line: directory, manifest and targets, options anywhere") {
  NinjaCommandLine plain = ParseNinjaCommandLine({"ninja"});
  CHECK(plain.dir.empty());
  CHECK(plain.manifest == "build.ninja");
  CHECK(plain.targets.empty());
  CHECK(plain.tool.empty());
  CHECK_FALSE(plain.jobs_given);

  NinjaCommandLine line =
      ParseNinjaCommandLine({"/usr/bin/ninja", "-C", "build", "-j4", "lib", "-k", "0", "-f",
                             "build-Debug.ninja", "CMakeFiles/x.dir/a.cu.o", "-v", "--quiet", "src/b.cu^"});
  CHECK(line.dir == "build");
  CHECK(line.manifest == "build-Debug.ninja");
  CHECK(line.targets == std::vector<std::string>{"lib", "CMakeFiles/x.dir/a.cu.o", "src/b.cu^"});
  CHECK(line.jobs_given);
  CHECK(line.quiet);
  CHECK_FALSE(plain.quiet);
  // getopt_long takes a prefix of a long option.
  CHECK(ParseNinjaCommandLine({"ninja", "--qui"}).quiet);
  CHECK_FALSE(ParseNinjaCommandLine({"ninja", "--verbose", "--", "--quiet"}).quiet);

  // Values attached or in a cluster of flags; `--` ends the options.
  NinjaCommandLine attached = ParseNinjaCommandLine({"ninja", "-Cout", "-nvj8", "-dexplain", "--", "-odd"});
  CHECK(attached.dir == "out");
  CHECK(attached.targets == std::vector<std::string>{"-odd"});
  CHECK(ParseNinjaCommandLine({"ninja", "-t", "inputs", "all"}).tool == "inputs");
}

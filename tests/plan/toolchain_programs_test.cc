#include "src/plan/toolchain_programs.h"

#include <doctest/doctest.h>

#include "src/plan/graph_dir.h"
#include "tests/test_support.h"

using namespace fastcuda;
using fastcuda::testing::FakeDryrunRunner;

TEST_CASE("the programs a generation identified: recorded, and told apart when they change") {
  FakeDryrunRunner runner;
  ProgramIdentifier identifier(runner);
  CHECK(identifier.Identify("gcc").path == "/cuda/bin/gcc");
  identifier.Identify("nvcc");
  runner.stamps["gcc"] = "2";
  CHECK(identifier.Identify("gcc").stamp == "1");  // once per generation
  const std::string record = FormatProgramRecord(identifier.Identified());
  CHECK(ParseProgramRecord(record).size() == 2);
  CHECK(ChangedPrograms(record, runner) == "gcc: /cuda/bin/gcc 2\n");
  runner.stamps.clear();
  CHECK(ChangedPrograms(record, runner).empty());
  CHECK(ChangedPrograms("", runner).empty());  // no record yet: nothing to tell
  CHECK(ParseProgramRecord("{\"gcc\": 3}").empty());
}

TEST_CASE("the steps' environment carries the host compiler's identity") {
  std::map<std::string, std::string> steps =
      WithHostCompiler({{"PATH", "/bin"}}, {"/usr/bin/g++-12", "9:1.0:7"});
  CHECK(steps == std::map<std::string, std::string>{{"PATH", "/bin"},
                                                    {kHostCompilerVariable, "/usr/bin/g++-12 9:1.0:7"}});
}

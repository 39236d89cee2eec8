#include "src/plan/toolchain_programs.h"

#include <doctest/doctest.h>

#include "src/plan/graph_dir.h"
#include "tests/test_support.h"

using namespace fastcuda;
using fastcuda::testing::FakeDryrunRunner;
using fastcuda::testing::FakeFileSystem;

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
      WithHostCompiler({{"CPATH", "/inc"}}, {"/usr/bin/g++-12", "9:1.0:7"});
  CHECK(steps == std::map<std::string, std::string>{{"CPATH", "/inc"},
                                                    {kHostCompilerVariable, "/usr/bin/g++-12 9:1.0:7"}});
}

TEST_CASE("the programs the steps look for on the PATH they inherit") {
  StepGraph graph;
  graph.environment["PATH"] = "/cuda/nvvm/bin:/cuda/bin:$PATH";
  auto step = [](std::vector<std::string> argv, size_t launcher_words = 0) {
    GraphStep made;
    made.argv = std::move(argv);
    made.launcher_words = launcher_words;
    return made;
  };
  graph.steps = {step({"gcc", "-E", "a.cu"}), step({"cudafe++", "a.ii"}), step({"/cuda/nvvm/bin/cicc"}),
                 step({"ccache", "g++", "-c"}, 1), step({"ptxas", "a.ptx"})};
  FakeFileSystem fs({{"/cuda/bin/cudafe++", ""}, {"/cuda/bin/ptxas", ""}});
  // nvcc's own directories, which come first, hold cudafe++ and ptxas: no
  // PATH changes them. A launcher gives its program's objects: not keyed.
  CHECK(ProgramsOnPath(graph, fs) == std::vector<std::string>{"as", "g++", "gcc"});
  FakeDryrunRunner runner;
  ProgramIdentifier identifier(runner);
  IdentifyPathPrograms(graph, identifier, fs);
  CHECK(graph.environment.at(kPathProgramsVariable) ==
        "as=/cuda/bin/as 1\ng++=/cuda/bin/g++ 1\ngcc=/cuda/bin/gcc 1\n");
  CHECK(identifier.Identified().size() == 3);  // recorded for the next generation
  // nvcc run whole (no PATH of nvcc's): nvcc itself too.
  StepGraph whole;
  whole.steps = {step({"nvcc", "-E", "a.cu"})};
  CHECK(ProgramsOnPath(whole, fs) == std::vector<std::string>{"as", "nvcc"});
  // A PATH of nvcc's own: the build's is not searched.
  graph.environment["PATH"] = "/cuda/bin";
  CHECK(ProgramsOnPath(graph, fs).empty());
}

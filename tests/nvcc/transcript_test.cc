#include <doctest/doctest.h>

#include "src/nvcc/transcript.h"
#include "tests/test_support.h"

using namespace fastcuda;
using fastcuda::testing::LoadTranscript;

TEST_CASE("variables, commands and the $CICC_PATH expansion") {
  Transcript transcript = LoadTranscript("single_arch");
  CHECK(transcript.variables.at("_TARGET_DIR_") == "targets/x86_64-linux");  // last one wins
  REQUIRE(transcript.variables.count("CICC_PATH"));
  bool found_cicc = false;
  for (const TranscriptCommand& command : transcript.commands) {
    REQUIRE(command.kind == TranscriptCommand::Kind::kRun);
    if (command.argv[0] == transcript.variables.at("CICC_PATH") + "/cicc") found_cicc = true;
  }
  CHECK(found_cicc);
  CHECK(transcript.commands.front().argv.front() == "gcc");
  CHECK(transcript.other_output.empty());
}

TEST_CASE("the Filter Dependencies pseudo-command names the depfile") {
  Transcript transcript = LoadTranscript("depfile");
  int filters = 0;
  for (const TranscriptCommand& command : transcript.commands) {
    if (command.kind != TranscriptCommand::Kind::kFilterDependencies) continue;
    ++filters;
    CHECK(command.depfile == "obj/kernel.o.d");
  }
  CHECK(filters == 1);
}

TEST_CASE("--threads adds redirections of each step's output") {
  Transcript transcript = LoadTranscript("threads");
  bool redirected = false;
  for (const TranscriptCommand& command : transcript.commands) {
    if (!command.redirections.empty()) redirected = true;
  }
  CHECK(redirected);
}

TEST_CASE("text that is not a dryrun line is kept for the user") {
  Transcript transcript = ParseTranscript("nvcc warning : something\n#$ A=1\n#$ echo $A\n",
                                          [](std::string_view) { return std::nullopt; });
  CHECK(transcript.other_output == "nvcc warning : something\n");
  REQUIRE(transcript.commands.size() == 1);
  CHECK(transcript.commands[0].argv == std::vector<std::string>{"echo", "1"});
}

TEST_CASE("variables nvcc does not set come from its environment") {
  Transcript transcript = ParseTranscript("#$ echo $HOME\n", [](std::string_view name) {
    return name == "HOME" ? std::optional<std::string>("/home/u") : std::nullopt;
  });
  CHECK(transcript.commands[0].argv == std::vector<std::string>{"echo", "/home/u"});
}

TEST_CASE("the sub-steps' PATH goes on with the steps' own, the rest of the dryrun as it is") {
  const std::string text =
      "#$ _HERE_=/cuda/bin\n#$ PATH=/cuda/nvvm/bin:/cuda/bin:/venv/bin:/usr/bin\n"
      "#$ gcc -E a.cu\nnvcc warning : something\n";
  CHECK(WithInheritedPath(text, "/venv/bin:/usr/bin") ==
        "#$ _HERE_=/cuda/bin\n#$ PATH=/cuda/nvvm/bin:/cuda/bin:$PATH\n#$ gcc -E a.cu\nnvcc warning : "
        "something\n");
  CHECK(WithInheritedPath(text, "/usr/local/bin") == text);
  Transcript transcript = ParseTranscript(WithInheritedPath(text, "/venv/bin:/usr/bin"),
                                          [](std::string_view) { return std::nullopt; });
  CHECK(transcript.variables.at("PATH") == "/cuda/nvvm/bin:/cuda/bin:$PATH");
}

#include <doctest/doctest.h>

#include "src/base/shell_words.h"

using namespace fastcuda;

namespace {
std::optional<std::string> NoVariables(std::string_view) { return std::nullopt; }
}  // namespace

TEST_CASE("nvcc's quoting: double quotes, escaped quotes, variables") {
  VariableLookup lookup = [](std::string_view name) -> std::optional<std::string> {
    if (name == "CICC_PATH") return "/cuda/nvvm/bin";
    return std::nullopt;
  };
  ShellCommand command = SplitShellCommand(
      R"("$CICC_PATH/cicc" -arch compute_80 "-I/a b" -DFATBINFILE="\"/tmp/x.fatbin.c\"" ${CICC_PATH}x $UNSET.)",
      lookup);
  CHECK(command.words == std::vector<std::string>{"/cuda/nvvm/bin/cicc", "-arch", "compute_80", "-I/a b",
                                                  "-DFATBINFILE=\"/tmp/x.fatbin.c\"", "/cuda/nvvm/binx",
                                                  "."});
  CHECK(command.redirections.empty());
}

TEST_CASE("single quotes and backslashes") {
  ShellCommand command = SplitShellCommand(R"('a "b" $c' a\ b "x\y")", NoVariables);
  CHECK(command.words == std::vector<std::string>{"a \"b\" $c", "a b", "x\\y"});
}

TEST_CASE("redirections are taken out of the words") {
  ShellCommand command = SplitShellCommand(R"(ptxas -o "x.cubin" > /tmp/out 2>/tmp/err)", NoVariables);
  CHECK(command.words == std::vector<std::string>{"ptxas", "-o", "x.cubin"});
  REQUIRE(command.redirections.size() == 2);
  CHECK(command.redirections[0].fd == 1);
  CHECK(command.redirections[0].file == "/tmp/out");
  CHECK(command.redirections[1].fd == 2);
  CHECK(command.redirections[1].file == "/tmp/err");
}

TEST_CASE("a quoted > is a word, not a redirection") {
  ShellCommand command = SplitShellCommand(R"(echo ">" '2>x')", NoVariables);
  CHECK(command.words == std::vector<std::string>{"echo", ">", "2>x"});
}

TEST_CASE("an unterminated quote is an error") {
  CHECK_THROWS_AS(SplitShellCommand(R"(gcc "-I/a)", NoVariables), ShellSyntaxError);
}

TEST_CASE("SplitShellWords keeps $ literal, as response files do") {
  CHECK(SplitShellWords("-DA=$B  \"-I x\"\n-c") == std::vector<std::string>{"-DA=$B", "-I x", "-c"});
}

TEST_CASE("quoting round-trips through the splitter") {
  std::vector<std::string> words = {"plain",     "with space",  "quote'in",    "dollar$x", "",
                                    "tab\there", "back\\slash", "non-ascii é", "#hash",    "a:b"};
  CHECK(SplitShellWords(JoinShellWords(words)) == words);
  CHECK(QuoteShellWord("-DX=1,2/a.b") == "-DX=1,2/a.b");
  // Paths are bytes, not UTF-8 (a fuzzer found this one).
  std::vector<std::string> bytes = {"name\x89o", "\xff\xfe", "caf\xc3\xa9"};
  CHECK(SplitShellWords(JoinShellWords(bytes)) == bytes);
}

TEST_CASE("shell syntax besides words: operators and substitutions, unless quoted") {
  for (const char* words : {"nvcc -c a.cu -o a.o", "nvcc '-Xcompiler=-fsanitize=address\\,undefined' -c a.cu",
                            "nvcc -Xlinker='$ORIGIN' -DX=\"a b\" '-DY=a;b' -DZ=a\\;b",
                            "nvcc --generate-code=arch=compute_80,code=[sm_80] -c a.cu"}) {
    CHECK_MESSAGE(!HasShellSyntax(words), words);
  }
  for (const char* more : {"cd x && nvcc -c a.cu", "nvcc -c a.cu; true", "nvcc -c a.cu > log",
                           "nvcc $FLAGS -c a.cu", "nvcc \"$FLAGS\" -c a.cu", "nvcc `flags` -c a.cu",
                           "nvcc -c a.cu | tee", "(nvcc -c a.cu)", "nvcc -c a.cu\nnvcc -c b.cu"}) {
    CHECK_MESSAGE(HasShellSyntax(more), more);
  }
}

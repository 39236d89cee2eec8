#include <doctest/doctest.h>

#include "src/nvcc/transcript_template.h"
#include "tests/test_support.h"

using namespace fastcuda;
using fastcuda::testing::LoadTranscript;

namespace {
// The recording ran in a directory we do not know; read it from the transcript.
std::string RecordedSourcePath(const Transcript& transcript) {
  for (const TranscriptCommand& command : transcript.commands) {
    for (size_t i = 0; i + 1 < command.argv.size(); ++i) {
      if (command.argv[i] == "--orig_src_path_name") return command.argv[i + 1];
    }
  }
  return "";
}
}  // namespace

TEST_CASE("instantiating a TU's dryrun for another source renames words and temporaries") {
  Transcript base = LoadTranscript("multi_gencode");
  TuNames from{"kernel.cu", RecordedSourcePath(base), "kernel.o"};
  TuNames to{"sub/other.cu", "/elsewhere/sub/other.cu", "out/other.o"};
  Transcript instance = InstantiateTranscript(base, from, to);
  bool saw_source = false, saw_output = false, saw_temp = false;
  for (const TranscriptCommand& command : instance.commands) {
    for (const std::string& word : command.argv) {
      CHECK(word.find("kernel") == std::string::npos);
      saw_source |= word == "sub/other.cu";
      saw_output |= word == "out/other.o";
      saw_temp |= word.find("_other.cpp4.ii") != std::string::npos;
    }
  }
  CHECK(saw_source);
  CHECK(saw_output);
  CHECK(saw_temp);
  CHECK_FALSE(SameCommands(base, instance));
  CHECK(SameCommands(InstantiateTranscript(instance, to, from), base));
}

TEST_CASE("SameCommands ignores the temporaries' directory and nvcc's process id but nothing else") {
  auto parse = [](const std::string& text) {
    return ParseTranscript(text, [](std::string_view) { return std::nullopt; });
  };
  CHECK(SameCommands(parse("#$ cicc -o /tmp/tmpxft_00001_00000000-6_a.ptx\n"),
                     parse("#$ cicc -o /tmp/tmpxft_0beef_00000000-6_a.ptx\n")));
  CHECK_FALSE(SameCommands(parse("#$ cicc -o /tmp/tmpxft_00001_00000000-6_a.ptx\n"),
                           parse("#$ cicc -o /tmp/tmpxft_00001_00000000-7_a.ptx\n")));
  CHECK(SameCommands(parse("#$ cicc -o /tmp/fastcuda-dryrun-7-0/tmpxft_00001_00000000-6_a.ptx\n"),
                     parse("#$ cicc -o /tmp/fastcuda-dryrun-7-1/tmpxft_0beef_00000000-6_a.ptx\n")));
  CHECK_FALSE(SameCommands(parse("#$ cicc -o /tmp/tmpxft_00001_00000000-6_a.ptx\n"),
                           parse("#$ cicc -o /tmp/tmpxft_00001_00000000-6_b.ptx\n")));
  CHECK_FALSE(SameCommands(parse("#$ cicc -I/a -o /tmp/tmpxft_00001_00000000-6_a.ptx\n"),
                           parse("#$ cicc -I/b -o /tmp/tmpxft_00001_00000000-6_a.ptx\n")));
  CHECK_FALSE(SameCommands(parse("#$ A=1\n#$ cicc\n"), parse("#$ A=2\n#$ cicc\n")));
}

TEST_CASE("a stem that is a substring of other words is replaced only in temporaries") {
  Transcript base =
      ParseTranscript("#$ gcc -I/usr/local/cuda/include -E cuda.cu -o /tmp/tmpxft_1_2-3_cuda.cpp4.ii\n",
                      [](std::string_view) { return std::nullopt; });
  Transcript instance =
      InstantiateTranscript(base, {"cuda.cu", "/s/cuda.cu", "cuda.o"}, {"x.cu", "/s/x.cu", "x.o"});
  CHECK(instance.commands[0].argv == std::vector<std::string>{"gcc", "-I/usr/local/cuda/include", "-E",
                                                              "x.cu", "-o", "/tmp/tmpxft_1_2-3_x.cpp4.ii"});
}

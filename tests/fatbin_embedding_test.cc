#include "src/fatbin_embedding.h"

#include <doctest/doctest.h>

#include <fstream>
#include <sstream>

namespace fastcuda {
namespace {

/// tests/transcripts/NAME.fatbin.c, as nvcc -keep left it (record.sh).
std::string RecordedFatbin(const std::string& name) {
  std::ifstream in(std::string(FASTCUDA_TRANSCRIPTS) + "/" + name + ".fatbin.c");
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

TEST_CASE("CUDA 13's fatbin.c splits into its data and the C the placeholder expects") {
  for (FatbinLayout layout : {FatbinLayout::kWhole, FatbinLayout::kRelocatable}) {
    std::string text = RecordedFatbin(std::string(FatbinLayoutName(layout)));
    REQUIRE(text.size() > 1000);
    std::optional<EmbeddedFatbin> fatbin = SplitEmbeddedFatbin(text);
    REQUIRE(fatbin);
    CHECK(fatbin->c_part == ExpectedFatbinCPart(layout));
    CHECK(fatbin->data_asm.starts_with("asm(\n"));
    CHECK(fatbin->data_asm.ends_with("\".text\\n\");\n"));
    CHECK(fatbin->data_asm.find("\"fatbinData:\\n\"") != std::string::npos);
    CHECK(fatbin->data_asm.size() + fatbin->c_part.size() < text.size());  // the array's size went
    CHECK(ParseFatbinLayout(FatbinLayoutName(layout)) == layout);
  }
  CHECK(ExpectedFatbinCPart(FatbinLayout::kWhole) != ExpectedFatbinCPart(FatbinLayout::kRelocatable));
  CHECK_FALSE(ParseFatbinLayout("both"));
}

TEST_CASE("a fatbin.c of another layout is told apart") {
  std::string text = RecordedFatbin("whole");
  CHECK_FALSE(SplitEmbeddedFatbin("int x;\n"));
  std::string renamed = text;
  renamed.replace(renamed.find("\"fatbinData:\\n\""), 14, "\"fatbinBytes:\\n");
  CHECK_FALSE(SplitEmbeddedFatbin(renamed));
  std::string changed = text;
  changed.replace(changed.find("0x466243b1"), 10, "0x466243b2");
  std::optional<EmbeddedFatbin> fatbin = SplitEmbeddedFatbin(changed);
  REQUIRE(fatbin);
  CHECK(fatbin->c_part != ExpectedFatbinCPart(FatbinLayout::kWhole));
  CHECK_FALSE(SplitEmbeddedFatbin(text + "asm(\n\"fatbinData:\\n\"\n\".text\\n\");\n"));
}

TEST_CASE("the placeholder and the data source") {
  std::string placeholder = FatbinPlaceholder(FatbinLayout::kRelocatable);
  CHECK(placeholder.starts_with("#ifdef FASTCUDA_REAL_FATBIN_C\n#include FASTCUDA_REAL_FATBIN_C\n#else\n"));
  CHECK(placeholder.find(ExpectedFatbinCPart(FatbinLayout::kRelocatable)) != std::string::npos);
  CHECK(placeholder.ends_with("#endif\n"));
  EmbeddedFatbin fatbin{"asm(\n\"fatbinData:\\n\"\n\".text\\n\");\n", ""};
  CHECK(FatbinDataSource(fatbin) == "asm(\".globl fatbinData\\n\");\n" + fatbin.data_asm);
}

}  // namespace
}  // namespace fastcuda

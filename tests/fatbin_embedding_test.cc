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

TEST_CASE("the placeholder includes the real fatbin.c only when told to") {
  std::string placeholder = FatbinPlaceholder(FatbinLayout::kRelocatable);
  CHECK(placeholder.starts_with("#ifdef FASTCUDA_REAL_FATBIN_C\n#include FASTCUDA_REAL_FATBIN_C\n#else\n"));
  CHECK(placeholder.find(ExpectedFatbinCPart(FatbinLayout::kRelocatable)) != std::string::npos);
  CHECK(placeholder.ends_with("#endif\n"));
}

/// The `asm` statement of a recorded fatbin.c.
EmbeddedFatbin RecordedData(FatbinLayout layout) {
  std::string text = RecordedFatbin(std::string(FatbinLayoutName(layout)));
  std::optional<EmbeddedFatbin> fatbin = SplitEmbeddedFatbin(text);
  REQUIRE(fatbin);
  return *fatbin;
}

TEST_CASE("the fatbin's bytes come out of the .quad lines little-endian, the section's directives around them") {
  for (FatbinLayout layout : {FatbinLayout::kWhole, FatbinLayout::kRelocatable}) {
    std::string text = RecordedFatbin(std::string(FatbinLayoutName(layout)));
    std::optional<FatbinData> data = AssembleFatbinData(RecordedData(layout), "/b/w dir/x.data.bin");
    REQUIRE(data);
    // As many bytes as the C part declares, and as many as 0x values.
    size_t declared = std::stoul(text.substr(text.find("fatbinData[") + 11));
    CHECK(data->bytes.size() == 8 * declared);
    size_t values = 0;
    for (size_t at = text.find("0x"); at != std::string::npos; at = text.find("0x", at + 1)) ++values;
    CHECK(data->bytes.size() == 8 * (values - 1));  // less the wrapper's 0x466243b1
    CHECK(data->bytes.substr(0, 8) == std::string("\x50\xed\x55\xba\x01\x00\x10\x00", 8));  // 0x00100001ba55ed50
    std::string section = layout == FatbinLayout::kWhole ? ".nv_fatbin" : "__nv_relfatbin";
    CHECK(data->assembly == ".globl fatbinData\n.section " + section + ", \"a\"\n.align 8\nfatbinData:\n"
                            ".incbin \"/b/w dir/x.data.bin\"\n.text\n.section .note.GNU-stack,\"\",@progbits\n");
  }
  EmbeddedFatbin last_line{
      "asm(\n\"fatbinData:\\n\"\n\".quad 0x0102030405060708, 0xff\\n\"\n\".text\\n\");\n", ""};
  std::optional<FatbinData> data = AssembleFatbinData(last_line, "x.bin");
  REQUIRE(data);
  CHECK(AssembleFatbinData(last_line, "a\"b\\c.bin")->assembly.find(".incbin \"a\\\"b\\\\c.bin\"\n") !=
        std::string::npos);  // quoted for the assembler
  CHECK(data->bytes == std::string("\x08\x07\x06\x05\x04\x03\x02\x01\xff\0\0\0\0\0\0\0", 16));
}

TEST_CASE("an asm statement of another shape is not assembled") {
  std::string good = "asm(\n\".align 8\\n\"\n\"fatbinData:\\n\"\n\".quad 0x1,0x2\\n\"\n\".text\\n\");\n";
  auto assembles = [](std::string text, std::string_view path = "x.bin") {
    return AssembleFatbinData(EmbeddedFatbin{std::move(text), ""}, path).has_value();
  };
  CHECK(assembles(good));
  auto changed = [&](std::string_view from, std::string_view to) {
    std::string text = good;
    return text.replace(text.find(from), from.size(), to);
  };
  CHECK_FALSE(assembles(changed("0x2", "0xg2")));                      // not hex
  CHECK_FALSE(assembles(changed("0x2", "0x10000000000000000")));       // more than 64 bits
  CHECK_FALSE(assembles(changed("0x1,0x2", "0x1;0x2")));
  CHECK_FALSE(assembles(changed(".quad 0x1,0x2", ".byte 1")));         // a directive it does not know as data
  CHECK_FALSE(assembles(changed(".align 8", ".align\\t8")));           // an escape it does not read
  CHECK_FALSE(assembles(changed("\".text\\n\");", "\".quad 0x3\\n\");")));  // no closing directive
  CHECK_FALSE(assembles(good + "\".quad 0x3\\n\"\n"));                  // bytes after the closing
  CHECK_FALSE(assembles(good.substr(0, good.size() - 1)));             // cut short
  CHECK_FALSE(assembles(changed("\".quad 0x1,0x2\\n\"\n", "")));        // no bytes at all
  CHECK_FALSE(assembles(good, "a\nb.bin"));                            // a path no assembler string holds
}

}  // namespace
}  // namespace fastcuda

#include "src/graph/fatbin_embedding.h"

#include <doctest/doctest.h>

#include <stdexcept>

#include "tests/test_support.h"

namespace fastcuda {
namespace {

using testing::RecordedFatbin;

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

TEST_CASE(
    "the assembly copies the binary fatbin where the .quad lines were, the section's directives around it") {
  for (FatbinLayout layout : {FatbinLayout::kWhole, FatbinLayout::kRelocatable}) {
    std::string name(FatbinLayoutName(layout));
    std::string section = layout == FatbinLayout::kWhole ? ".nv_fatbin" : "__nv_relfatbin";
    std::string expected = ".globl fatbinData\n.section " + section +
                           ", \"a\"\n.align 8\nfatbinData:\n"
                           ".incbin \"/b/w dir/x.fatbin\"\n.text\n.section .note.GNU-stack,\"\",@progbits\n";
    FatbinLayout other = layout == FatbinLayout::kWhole ? FatbinLayout::kRelocatable : FatbinLayout::kWhole;
    // nvcc's full .fatbin.c, and the probe's (an empty fatbin): the same layout.
    for (const std::string& recorded : {name, name + ".probe"}) {
      CAPTURE(recorded);
      std::string text = RecordedFatbin(recorded);
      CHECK(EmbeddingAssembly(text, layout, "/b/w dir/x.fatbin") == expected);
      CHECK_FALSE(EmbeddingAssembly(text, other, "/b/w dir/x.fatbin"));
    }
  }
  EmbeddedFatbin last_line{
      "asm(\n\"fatbinData:\\n\"\n\".quad 0x0102030405060708, 0xff\\n\"\n\".text\\n\");\n", ""};
  CHECK(FatbinAssembly(last_line, "a\"b\\c.fatbin")->find(".incbin \"a\\\"b\\\\c.fatbin\"\n") !=
        std::string::npos);  // quoted for the assembler
}

TEST_CASE("an asm statement of another shape is not assembled") {
  std::string good = "asm(\n\".align 8\\n\"\n\"fatbinData:\\n\"\n\".quad 0x1,0x2\\n\"\n\".text\\n\");\n";
  auto assembles = [](std::string text, std::string_view path = "x.fatbin") {
    return FatbinAssembly(EmbeddedFatbin{std::move(text), ""}, path).has_value();
  };
  CHECK(assembles(good));
  auto changed = [&](std::string_view from, std::string_view to) {
    std::string text = good;
    return text.replace(text.find(from), from.size(), to);
  };
  CHECK_FALSE(assembles(changed(".quad 0x1,0x2", ".byte 1")));  // a directive it does not know as data
  CHECK_FALSE(assembles(changed(".align 8", ".align\\t8")));    // an escape it does not read
  CHECK_FALSE(assembles(changed("\".text\\n\");", "\".quad 0x3\\n\");")));  // no closing directive
  CHECK_FALSE(assembles(good + "\".quad 0x3\\n\"\n"));                      // bytes after the closing
  CHECK_FALSE(assembles(good.substr(0, good.size() - 1)));                  // cut short
  CHECK_FALSE(assembles(changed("\".quad 0x1,0x2\\n\"\n", "")));            // no bytes at all
  CHECK_FALSE(assembles(good, "a\nb.fatbin"));  // a path no assembler string holds
}

TEST_CASE("fatbinary probes the layout without images, then writes the bytes alone") {
  std::vector<std::string> fatbinary = {"fatbinary",
                                        "-64",
                                        "--cicc-cmdline=-ftz=0 ",
                                        "--image3=kind=elf,sm=80,file=k.cubin",
                                        "--image3=kind=ptx,sm=80,file=k.ptx",
                                        "--embedded-fatbin=/b/k.fatbin.c",
                                        "--device-c"};
  CHECK(LayoutProbeCommand(fatbinary) ==
        std::vector<std::string>{"fatbinary", "-64", "--cicc-cmdline=-ftz=0 ",
                                 "--embedded-fatbin=/b/k.fatbin.c", "--device-c"});
  CHECK(BinaryFatbinCommand(fatbinary, "/b/k.fatbin") ==
        std::vector<std::string>{"fatbinary", "-64", "--cicc-cmdline=-ftz=0 ",
                                 "--image3=kind=elf,sm=80,file=k.cubin", "--image3=kind=ptx,sm=80,file=k.ptx",
                                 "--device-c", "--create=/b/k.fatbin"});
  std::vector<std::string> twice = fatbinary;
  twice.push_back("--embedded-fatbin=/b/other.fatbin.c");
  CHECK_THROWS_AS(BinaryFatbinCommand(twice, "/b/k.fatbin"), std::invalid_argument);
  CHECK_THROWS_AS(BinaryFatbinCommand({"fatbinary", "--embedded-fatbin", "/b/k.fatbin.c"}, "/b/k.fatbin"),
                  std::invalid_argument);  // the form nvcc does not write
}

}  // namespace
}  // namespace fastcuda

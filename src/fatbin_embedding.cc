#include "src/fatbin_embedding.h"

#include <re2/re2.h>

namespace fastcuda {
namespace {

/// The C around the data in CUDA 13's `.fatbin.c`, before and after the
/// wrapper that points at it; the layouts differ in the data's section and
/// the wrapper's name (relocatable objects name it after the module id).
constexpr std::string_view kHeaderBeforeSection =
    "#ifndef __SKIP_INTERNAL_FATBINARY_HEADERS\n"
    "#include \"fatbinary_section.h\"\n"
    "#endif\n"
    "#define __CUDAFATBINSECTION  \".nvFatBinSegment\"\n"
    "#define __CUDAFATBINDATASECTION  ";
constexpr std::string_view kDataDeclaration =
    "#ifdef __cplusplus\nextern \"C\" {\n#endif\n"
    "extern const unsigned long long fatbinData[];\n"
    "#ifdef __cplusplus\n}\n#endif\n"
    "#ifdef __cplusplus\nextern \"C\" {\n#endif\n";
constexpr std::string_view kWholeWrapper =
    "static const __fatBinC_Wrapper_t __fatDeviceText";
constexpr std::string_view kRelocatableWrapper =
    "#undef __FATIDNAME_CORE\n"
    "#undef __FATIDNAME\n"
    "#define __FATIDNAME_CORE(x) __fatbinwrap##x\n"
    "#define __FATIDNAME(x) __FATIDNAME_CORE(x)\n"
    "extern const __fatBinC_Wrapper_t __FATIDNAME(__NV_MODULE_ID)";
constexpr std::string_view kWrapperValue =
    " __attribute__ ((aligned (8))) __attribute__ ((section (__CUDAFATBINSECTION)))= \n"
    "\t{ 0x466243b1, 1, fatbinData, 0 };\n"
    "#ifdef __cplusplus\n}\n#endif\n";

}  // namespace

std::string_view FatbinLayoutName(FatbinLayout layout) {
  return layout == FatbinLayout::kWhole ? "whole" : "relocatable";
}

std::optional<FatbinLayout> ParseFatbinLayout(std::string_view name) {
  for (FatbinLayout layout : {FatbinLayout::kWhole, FatbinLayout::kRelocatable}) {
    if (FatbinLayoutName(layout) == name) return layout;
  }
  return std::nullopt;
}

std::optional<EmbeddedFatbin> SplitEmbeddedFatbin(std::string_view text) {
  // The statement opens with `asm(` at a line's start and a few string
  // literals naming the section and the label, then holds the bytes (tens
  // of MB for big fatbins: found with find, not a pattern) and closes with
  // the literal that switches back to `.text`.
  static const RE2 opening(R"re((?m)^(asm\(\n(?:"[^\n]*"\n){0,8}?"fatbinData:\\n"\n))re");
  static const RE2 array_size(R"re(fatbinData\[[0-9]+\])re");
  constexpr std::string_view kClosing = "\".text\\n\");\n";
  re2::StringPiece input(text.data(), text.size());
  re2::StringPiece head;
  if (!RE2::PartialMatch(input, opening, &head)) return std::nullopt;
  size_t at = head.data() - text.data();
  size_t closing = text.find(kClosing, at + head.size());
  if (closing == std::string_view::npos) return std::nullopt;
  size_t end = closing + kClosing.size();
  EmbeddedFatbin fatbin;
  fatbin.data_asm = std::string(text.substr(at, end - at));
  fatbin.c_part = std::string(text.substr(0, at)) + std::string(text.substr(end));
  if (fatbin.c_part.find("asm(") != std::string::npos) return std::nullopt;
  RE2::GlobalReplace(&fatbin.c_part, array_size, "fatbinData[]");
  return fatbin;
}

std::string ExpectedFatbinCPart(FatbinLayout layout) {
  bool whole = layout == FatbinLayout::kWhole;
  std::string text(kHeaderBeforeSection);
  text += whole ? "\".nv_fatbin\"\n" : "\"__nv_relfatbin\"\n";
  text += kDataDeclaration;
  text += whole ? kWholeWrapper : kRelocatableWrapper;
  text += kWrapperValue;
  return text;
}

std::string FatbinPlaceholder(FatbinLayout layout) {
  std::string macro(kRealFatbinMacro);
  return "#ifdef " + macro + "\n#include " + macro + "\n#else\n" + ExpectedFatbinCPart(layout) +
         "#endif\n";
}

std::string FatbinDataSource(const EmbeddedFatbin& fatbin) {
  return "asm(\".globl " + std::string(kFatbinDataSymbol) + "\\n\");\n" + fatbin.data_asm;
}

}  // namespace fastcuda

#include "src/graph/fatbin_embedding.h"

#include <re2/re2.h>

#include <algorithm>
#include <cstdint>
#include <stdexcept>

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
constexpr std::string_view kWholeWrapper = "static const __fatBinC_Wrapper_t __fatDeviceText";
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

/// How each string literal of the `asm` statement ends: a newline, escaped.
constexpr std::string_view kLiteralEnd = "\\n\"";

/// The assembler text of a directive's string literal ("\".align 8\\n\"");
/// nullopt for escapes other than \\" and the final \\n.
std::optional<std::string> DirectiveOf(std::string_view literal) {
  if (literal.size() < 1 + kLiteralEnd.size() || !literal.starts_with('"') ||
      !literal.ends_with(kLiteralEnd)) {
    return std::nullopt;
  }
  literal = literal.substr(1, literal.size() - 1 - kLiteralEnd.size());
  std::string directive;
  for (size_t i = 0; i < literal.size(); ++i) {
    if (literal[i] == '\\') {
      if (i + 1 == literal.size() || literal[i + 1] != '"') return std::nullopt;
      ++i;
    } else if (literal[i] == '"') {
      return std::nullopt;
    }
    directive += literal[i];
  }
  return directive;
}

/// Where the `asm` statement holding a `.fatbin.c`'s bytes lies: it opens
/// with `asm(` at a line's start and a few string literals naming the
/// section and the label, then holds the bytes (tens of MB for big
/// fatbins: found with find, not a pattern) and closes with the literal
/// that switches back to `.text`.
struct DataStatement {
  size_t begin = 0;    ///< `asm(`
  size_t data = 0;     ///< the first `.quad` line
  size_t closing = 0;  ///< the closing literal
  size_t end = 0;      ///< just after the statement
};

std::optional<DataStatement> FindDataStatement(std::string_view text) {
  static const RE2 opening(R"re((?m)^(asm\(\n(?:"[^\n]*"\n){0,8}?"fatbinData:\\n"\n))re");
  constexpr std::string_view kClosing = "\".text\\n\");\n";
  re2::StringPiece input(text.data(), text.size());
  re2::StringPiece head;
  if (!RE2::PartialMatch(input, opening, &head)) return std::nullopt;
  DataStatement statement;
  statement.begin = head.data() - text.data();
  statement.data = statement.begin + head.size();
  statement.closing = text.find(kClosing, statement.data);
  if (statement.closing == std::string_view::npos) return std::nullopt;
  statement.end = statement.closing + kClosing.size();
  return statement;
}

/// The array's size in the C part: `fatbinData[N]`.
const RE2& ArraySize() {
  static const RE2 array_size(R"re(fatbinData\[[0-9]+\])re");
  return array_size;
}

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
  std::optional<DataStatement> statement = FindDataStatement(text);
  if (!statement) return std::nullopt;
  EmbeddedFatbin fatbin;
  fatbin.data_asm = std::string(text.substr(statement->begin, statement->end - statement->begin));
  fatbin.c_part = std::string(text.substr(0, statement->begin)) + std::string(text.substr(statement->end));
  if (fatbin.c_part.find("asm(") != std::string::npos) return std::nullopt;
  RE2::GlobalReplace(&fatbin.c_part, ArraySize(), "fatbinData[]");
  return fatbin;
}

std::optional<std::string> WithFatbinData(std::string_view fatbin_c, std::string_view bytes) {
  std::optional<DataStatement> statement = FindDataStatement(fatbin_c);
  if (!statement || bytes.size() % 8 != 0 || !SplitEmbeddedFatbin(fatbin_c)) return std::nullopt;
  const size_t quads = bytes.size() / 8;
  std::string data;
  data.reserve(quads * 20 + quads / 4 * 12);
  constexpr std::string_view kDigits = "0123456789abcdef";
  char value[18] = {'0', 'x'};
  for (size_t line = 0; line < quads; line += 4) {
    // fatbinary joins a full line's values with ",", a shorter last line's with ", ".
    const size_t count = std::min<size_t>(4, quads - line);
    data += "\".quad ";
    for (size_t i = line; i < line + count; ++i) {
      // A little-endian quad, its most significant byte (the 8th) first.
      for (size_t byte = 0; byte < 8; ++byte) {
        unsigned char c = static_cast<unsigned char>(bytes[i * 8 + 7 - byte]);
        value[2 + 2 * byte] = kDigits[c >> 4];
        value[3 + 2 * byte] = kDigits[c & 15];
      }
      if (i > line) data += count == 4 ? "," : ", ";
      data.append(value, sizeof value);
    }
    data += "\\n\"\n";
  }
  std::string after(fatbin_c.substr(statement->closing));
  RE2::GlobalReplace(&after, ArraySize(), "fatbinData[" + std::to_string(quads) + "]");
  return std::string(fatbin_c.substr(0, statement->data)) + data + after;
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
  return "#ifdef " + macro + "\n#include " + macro + "\n#else\n" + ExpectedFatbinCPart(layout) + "#endif\n";
}

std::optional<std::string> FatbinAssembly(const EmbeddedFatbin& fatbin, std::string_view bytes_path) {
  if (bytes_path.find('\n') != std::string_view::npos) return std::nullopt;
  std::string quoted_path;
  for (char c : bytes_path) {
    if (c == '"' || c == '\\') quoted_path += '\\';
    quoted_path += c;
  }
  std::string assembly = ".globl " + std::string(kFatbinDataSymbol) + "\n";
  // Each line after `asm(` holds one string literal: a directive, or a
  // `.quad` line; the last closes the statement.
  std::string_view text = fatbin.data_asm;
  constexpr std::string_view kOpening = "asm(\n", kQuad = "\".quad ";
  if (!text.starts_with(kOpening)) return std::nullopt;
  enum class Part { kBefore, kBytes, kAfter } part = Part::kBefore;
  for (size_t start = kOpening.size(), end; start < text.size(); start = end + 1) {
    end = text.find('\n', start);
    if (end == std::string_view::npos) return std::nullopt;
    std::string_view line = text.substr(start, end - start);
    if (line.starts_with(kQuad)) {
      if (part == Part::kAfter) return std::nullopt;
      // fatbinary's binary output holds the same bytes: a fatbin is made of
      // 8-byte units, which its `.fatbin.c` writes as `.quad` values.
      if (part == Part::kBefore) assembly += ".incbin \"" + quoted_path + "\"\n";
      part = Part::kBytes;
      continue;
    }
    if (part == Part::kBytes) part = Part::kAfter;
    if (line.ends_with(");")) line.remove_suffix(2);  // the closing literal
    std::optional<std::string> directive = DirectiveOf(line);
    if (!directive) return std::nullopt;
    assembly += *directive + "\n";
  }
  if (part != Part::kAfter) return std::nullopt;
  // What the compiler would have said: this object needs no executable stack.
  assembly += ".section .note.GNU-stack,\"\",@progbits\n";
  return assembly;
}

std::optional<std::string> EmbeddingAssembly(std::string_view fatbin_c, FatbinLayout layout,
                                             std::string_view bytes_path) {
  std::optional<EmbeddedFatbin> fatbin = SplitEmbeddedFatbin(fatbin_c);
  if (!fatbin || fatbin->c_part != ExpectedFatbinCPart(layout)) return std::nullopt;
  return FatbinAssembly(*fatbin, bytes_path);
}

std::vector<std::string> LayoutProbeCommand(const std::vector<std::string>& fatbinary) {
  std::vector<std::string> probe;
  for (const std::string& word : fatbinary) {
    if (!word.starts_with("--image")) probe.push_back(word);  // --image3=kind=elf,sm=80,file=...
  }
  return probe;
}

std::vector<std::string> BinaryFatbinCommand(const std::vector<std::string>& fatbinary,
                                             std::string_view bytes_path) {
  std::vector<std::string> command;
  for (const std::string& word : fatbinary) {
    if (!word.starts_with(kEmbeddedFatbinFlag)) command.push_back(word);
  }
  if (command.size() + 1 != fatbinary.size()) {
    throw std::invalid_argument("fatbinary needs one " + std::string(kEmbeddedFatbinFlag) + "PATH");
  }
  command.push_back("--create=" + std::string(bytes_path));
  return command;
}

}  // namespace fastcuda

#include "src/nvcc/ptx_line_table.h"

#include <re2/re2.h>

#include <algorithm>
#include <set>

namespace fastcuda {
namespace {

/// A PTX string's text: `\"` and `\\` as the characters they stand for.
std::string Unescaped(std::string_view quoted) {
  std::string text;
  for (size_t i = 0; i < quoted.size(); ++i) {
    if (quoted[i] == '\\' && i + 1 < quoted.size()) ++i;
    text += quoted[i];
  }
  return text;
}

}  // namespace

std::vector<std::string> PtxLineTableFiles(std::string_view ptx) {
  // `.file 1 "/src/k.cu"`, where a later PTX ISA may add `, mtime, size`.
  static const RE2 file_directive(R"re((?m)^[ \t]*\.file[ \t]+\d+[ \t]+"((?:[^"\\\n]|\\.)*)")re");
  re2::StringPiece input(ptx.data(), ptx.size());
  std::vector<std::string> files;
  std::string quoted;
  while (RE2::FindAndConsume(&input, file_directive, &quoted)) files.push_back(Unescaped(quoted));
  return files;
}

bool WritesLineInformation(const std::vector<std::string>& argv) {
  static const std::set<std::string> flags = {"-g",
                                              "-G",
                                              "--debug_mode",
                                              "-lineinfo",
                                              "-generate-line-info",
                                              "--generate-line-info",
                                              "--device-debug"};
  return std::any_of(argv.begin(), argv.end(), [](const std::string& word) { return flags.count(word) > 0; });
}

}  // namespace fastcuda

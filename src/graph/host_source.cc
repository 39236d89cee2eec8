#include "src/graph/host_source.h"

#include <re2/re2.h>

namespace fastcuda {

std::optional<std::string> BlankDisabledCode(std::string_view cudafe_output) {
  static const RE2 raw_string(R"re(R"[^\s()\\"]{0,16}\()re");
  static const RE2 opens(R"re(\s*#\s*if(?:n?def)?\b.*)re");
  static const RE2 closes(R"re(\s*#\s*endif\b.*)re");
  static const RE2 switches(R"re(\s*#\s*(?:else|elif(?:n?def)?)\b.*)re");
  static const RE2 disables(R"re(\s*#\s*if\s+0\s*)re");
  re2::StringPiece text(cudafe_output.data(), cudafe_output.size());
  if (RE2::PartialMatch(text, raw_string)) return std::nullopt;
  std::string out;
  out.reserve(cudafe_output.size());
  int depth = 0;  // > 0: inside an `#if 0` block, counting the conditionals opened in it
  size_t start = 0;
  while (start < cudafe_output.size()) {
    size_t end = cudafe_output.find('\n', start);
    if (end == std::string_view::npos) end = cudafe_output.size();
    std::string_view line = cudafe_output.substr(start, end - start);
    re2::StringPiece piece(line.data(), line.size());
    bool directive = line.find('#') != std::string_view::npos;
    if (depth == 0) {
      out += line;
      if (directive && RE2::FullMatch(piece, disables)) depth = 1;
    } else if (directive && RE2::FullMatch(piece, closes) && --depth == 0) {
      out += line;
    } else if (directive && RE2::FullMatch(piece, opens)) {
      ++depth;
    } else if (directive && depth == 1 && RE2::FullMatch(piece, switches)) {
      return std::nullopt;  // code after it is live: not a shape cudafe++ writes
    }
    if (end < cudafe_output.size()) out += '\n';
    start = end + 1;
  }
  return out;
}

std::optional<std::string> RestoreStubName(std::string_view cudafe_output, std::string_view stub_name) {
  // The stub is the last file cudafe++ includes, at the very end of its output.
  constexpr std::string_view kInclude = "\n#include \"";
  size_t include = cudafe_output.rfind(kInclude);
  if (include == std::string_view::npos) return std::nullopt;
  size_t name_begin = include + kInclude.size();
  size_t name_end = cudafe_output.find('"', name_begin);
  if (name_end == std::string_view::npos) return std::nullopt;
  std::string_view stored = cudafe_output.substr(name_begin, name_end - name_begin);
  if (stored == stub_name) return std::nullopt;
  // The include and the line markers around it (`# 1 "NAME"`) name it so.
  auto quoted = [](std::string_view name) {
    std::string text(1, '"');
    text.append(name).push_back('"');
    return text;
  };
  std::string quoted_stored = quoted(stored), quoted_name = quoted(stub_name);
  std::string out;
  out.reserve(cudafe_output.size() + quoted_name.size() * 4);
  size_t start = 0;
  for (size_t found = cudafe_output.find(quoted_stored); found != std::string_view::npos;
       found = cudafe_output.find(quoted_stored, found + quoted_stored.size())) {
    size_t line_begin = cudafe_output.rfind('\n', found);
    line_begin = line_begin == std::string_view::npos ? 0 : line_begin + 1;
    if (cudafe_output[line_begin] != '#') continue;  // a directive's file name, not a string of the code
    out += cudafe_output.substr(start, found - start);
    out += quoted_name;
    start = found + quoted_stored.size();
  }
  out += cudafe_output.substr(start);
  return out;
}

}  // namespace fastcuda

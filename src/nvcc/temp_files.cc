#include "src/nvcc/temp_files.h"

#include <re2/re2.h>

namespace fastcuda {
namespace {

const RE2& FullPathPattern() {
  static const RE2 re(R"re((?:/[^/\s"',=:]+)*/tmpxft_[0-9a-f]+_[0-9a-f]+-([0-9]+)_)re", RE2::Latin1);
  return re;
}

const RE2& BareNamePattern() {
  static const RE2 re(R"re(tmpxft_[0-9a-f]+_[0-9a-f]+-([0-9]+)_)re", RE2::Latin1);
  return re;
}

}  // namespace

std::string EscapeRewrite(std::string_view text) {
  std::string out;
  for (char c : text) {
    if (c == '\\') out += '\\';
    out += c;
  }
  return out;
}

TempFileNamer::TempFileNamer(std::string work_dir, bool keep_sequence_numbers) {
  std::string sequence = keep_sequence_numbers ? "\\1_" : "";
  full_path_rewrite_ = EscapeRewrite(work_dir) + "/" + sequence;
  bare_name_rewrite_ = sequence;
}

std::string TempFileNamer::Rename(std::string_view word) const {
  std::string renamed(word);
  RE2::GlobalReplace(&renamed, FullPathPattern(), full_path_rewrite_);
  RE2::GlobalReplace(&renamed, BareNamePattern(), bare_name_rewrite_);
  return renamed;
}

bool TempFileNamer::MentionsTemp(std::string_view word) { return RE2::PartialMatch(word, BareNamePattern()); }

}  // namespace fastcuda

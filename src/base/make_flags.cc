#include "src/base/make_flags.h"

#include <re2/re2.h>

#include <string>

namespace fastcuda {

bool MakeKeepsGoing(std::string_view makeflags) {
  static const RE2 keep_going(R"re(-?[A-Za-z]*k[A-Za-z]*(?:\s.*)?)re", RE2::Latin1);
  return RE2::FullMatch(re2::StringPiece(makeflags.data(), makeflags.size()), keep_going);
}

bool MakeRunsRecipesAtOnce(std::string_view makeflags) {
  static const RE2 jobs(R"re((?:^|\s)-j(\d*)(?:\s|$))re");
  std::string limit;
  if (!RE2::PartialMatch(re2::StringPiece(makeflags.data(), makeflags.size()), jobs, &limit)) return false;
  return limit.empty() || std::stoul(limit) > 1;
}

}  // namespace fastcuda

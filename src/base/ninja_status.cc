#include "src/base/ninja_status.h"

#include <re2/re2.h>

namespace fastcuda {

std::optional<NinjaStatusLine> ParseNinjaStatusLine(std::string_view line) {
  static const RE2 status(R"re(fastcuda-status (\d+) (\d+) (\d+): (.*))re");
  NinjaStatusLine parsed;
  if (!RE2::FullMatch(re2::StringPiece(line.data(), line.size()), status, &parsed.finished, &parsed.total,
                      &parsed.running, &parsed.description)) {
    return std::nullopt;
  }
  return parsed;
}

}  // namespace fastcuda

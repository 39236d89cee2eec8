// Small edits of text that several layers make.
#pragma once

#include <string>
#include <string_view>

namespace fastcuda {

/// `text` with every occurrence of `from` replaced by `to`, left to right
/// (what `to` puts in is not searched again); unchanged if `from` is empty.
std::string ReplaceAll(std::string text, std::string_view from, std::string_view to);

/// `text` in lower case (ASCII).
std::string Lower(std::string_view text);

}  // namespace fastcuda

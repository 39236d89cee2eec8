// A hash that is the same on every run and machine, for naming files.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace fastcuda {

/// 64-bit FNV-1a of `text`.
uint64_t StableHash(std::string_view text);

/// The first `digits` hex digits of StableHash(text).
std::string StableHashHex(std::string_view text, int digits = 8);

}  // namespace fastcuda

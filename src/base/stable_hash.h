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

/// 16 hex digits of a hash of a file's body that reads eight bytes a step:
/// FNV-1a's byte a step took 1 ns a byte, a millisecond for each
/// preprocessed source a light TU stubs. Not for names: StableHashHex's
/// values name directories of existing build trees.
std::string ContentHashHex(std::string_view body);

}  // namespace fastcuda

#include "src/base/stable_hash.h"

#include <cstdio>
#include <cstring>

namespace fastcuda {
namespace {

/// `hash` as 16 hex digits.
std::string Hex(uint64_t hash) {
  char hex[17];
  std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(hash));
  return hex;
}

}  // namespace

uint64_t StableHash(std::string_view text) {
  uint64_t hash = 0xcbf29ce484222325ull;
  for (unsigned char c : text) hash = (hash ^ c) * 0x100000001b3ull;
  return hash;
}

std::string StableHashHex(std::string_view text, int digits) {
  return Hex(StableHash(text)).substr(0, digits);
}

std::string ContentHashHex(std::string_view body) {
  // Each word mixed by a multiply and a fold of its high half (as
  // MurmurHash's finalizer does), the length last: no two lengths of zeros alike.
  constexpr uint64_t kMultiplier = 0x9e3779b97f4a7c15ull;
  uint64_t hash = 0xcbf29ce484222325ull;
  auto mix = [&](uint64_t word) {
    hash = (hash ^ word) * kMultiplier;
    hash ^= hash >> 32;
  };
  size_t at = 0;
  for (; at + 8 <= body.size(); at += 8) {
    uint64_t word;
    std::memcpy(&word, body.data() + at, 8);
    mix(word);
  }
  uint64_t tail = 0;
  std::memcpy(&tail, body.data() + at, body.size() - at);
  mix(tail);
  mix(body.size());
  return Hex(hash);
}

}  // namespace fastcuda

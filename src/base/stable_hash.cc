#include "src/base/stable_hash.h"

#include <cstdio>

namespace fastcuda {

uint64_t StableHash(std::string_view text) {
  uint64_t hash = 0xcbf29ce484222325ull;
  for (unsigned char c : text) hash = (hash ^ c) * 0x100000001b3ull;
  return hash;
}

std::string StableHashHex(std::string_view text, int digits) {
  char hex[17];
  std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(StableHash(text)));
  return std::string(hex, digits);
}

}  // namespace fastcuda

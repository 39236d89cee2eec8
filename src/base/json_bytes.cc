#include "src/base/json_bytes.h"

#include <algorithm>
#include <optional>

namespace fastcuda {
namespace {

// nlohmann::json takes only UTF-8, so bytes travel through it as code points
// of a reserved private-use range: byte b (0x80..0xFF, ASCII is always valid)
// as U+10FF00+b, whose UTF-8 is F4 8F BE|BF 80..BF. A genuine character of
// that range is carried as its four bytes, each a reserved code point, so
// that mapping back yields every string's bytes exactly.

bool IsContinuation(unsigned char byte) { return (byte & 0xC0) == 0x80; }

/// The length of the well-formed UTF-8 character at text[i], 0 if none.
size_t CharLength(std::string_view text, size_t i) {
  auto at = [&](size_t k) -> unsigned char { return i + k < text.size() ? text[i + k] : 0; };
  unsigned char lead = at(0);
  if (lead < 0x80) return 1;
  // The allowed range of the second byte excludes overlong forms, UTF-16
  // surrogates and code points above U+10FFFF.
  unsigned char low = 0x80, high = 0xBF;
  size_t length;
  if (lead >= 0xC2 && lead <= 0xDF) length = 2;
  else if (lead >= 0xE0 && lead <= 0xEF) length = 3;
  else if (lead >= 0xF0 && lead <= 0xF4) length = 4;
  else return 0;
  if (lead == 0xE0) low = 0xA0;
  if (lead == 0xED) high = 0x9F;
  if (lead == 0xF0) low = 0x90;
  if (lead == 0xF4) high = 0x8F;
  if (at(1) < low || at(1) > high) return 0;
  for (size_t k = 2; k < length; ++k) {
    if (!IsContinuation(at(k))) return 0;
  }
  return length;
}

/// Whether text[i] starts a reserved code point (U+10FF80..U+10FFFF).
bool IsReserved(std::string_view text, size_t i) {
  auto at = [&](size_t k) { return static_cast<unsigned char>(text[i + k]); };
  return i + 3 < text.size() && at(0) == 0xF4 && at(1) == 0x8F && (at(2) & 0xFE) == 0xBE &&
         IsContinuation(at(3));
}

void AppendReserved(std::string& out, unsigned char byte) {
  out += {'\xF4', '\x8F', byte >= 0xC0 ? '\xBF' : '\xBE', static_cast<char>(0x80 | (byte & 0x3F))};
}

/// Appends the character or byte at text[i] in the reserved encoding;
/// returns how many bytes it took.
size_t AppendEncoded(std::string& out, std::string_view text, size_t i) {
  size_t length = CharLength(text, i);
  if (length == 0 || IsReserved(text, i)) {
    for (size_t k = 0; k < std::max<size_t>(length, 1); ++k) AppendReserved(out, text[i + k]);
    return std::max<size_t>(length, 1);
  }
  out.append(text, i, length);
  return length;
}

std::string Encode(std::string_view raw) {
  std::string out;
  out.reserve(raw.size());
  for (size_t i = 0; i < raw.size();) i += AppendEncoded(out, raw, i);
  return out;
}

std::string Decode(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size();) {
    if (IsReserved(text, i)) {
      out += static_cast<char>((text[i + 2] == '\xBF' ? 0xC0 : 0x80) | (text[i + 3] & 0x3F));
      i += 4;
    } else {
      out += text[i++];
    }
  }
  return out;
}

std::optional<unsigned> Hex4(std::string_view text, size_t i) {
  if (i + 4 > text.size()) return std::nullopt;
  unsigned value = 0;
  for (char c : text.substr(i, 4)) {
    int digit = c >= '0' && c <= '9'   ? c - '0'
                : c >= 'a' && c <= 'f' ? c - 'a' + 10
                : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                       : -1;
    if (digit < 0) return std::nullopt;
    value = value * 16 + static_cast<unsigned>(digit);
  }
  return value;
}

/// The reserved encoding of JSON text. An escaped reserved character
/// (\uDBFF\uDF80..\uDFFF) becomes its four bytes too, or Decode would read it
/// as one byte.
std::string EncodeText(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size();) {
    if (text[i] != '\\') {
      i += AppendEncoded(out, text, i);
      continue;
    }
    std::string_view pair = text.substr(i, 12);  // \uDBFF\uDFxx
    std::optional<unsigned> high, low;
    if (pair.size() == 12 && pair[1] == 'u' && pair.substr(6, 2) == "\\u") {
      high = Hex4(pair, 2);
      low = Hex4(pair, 8);
    }
    if (high == 0xDBFFu && low && *low >= 0xDF80 && *low <= 0xDFFF) {
      // U+10FF80..U+10FFFF is F4 8F BE|BF 80..BF.
      const char bytes[] = {'\xF4', '\x8F', *low >= 0xDFC0 ? '\xBF' : '\xBE',
                            static_cast<char>(0x80 | (*low & 0x3F))};
      for (char byte : bytes) AppendReserved(out, byte);
      i += 12;
    } else {
      // The escaped character is copied with the backslash, so that `\\` is
      // not read as the start of an escape.
      out += text[i++];
      if (i < text.size() && static_cast<unsigned char>(text[i]) < 0x80) out += text[i++];
    }
  }
  return out;
}

/// Replaces every string and object key in `value` by map(it).
template <typename Map>
void MapStrings(nlohmann::json& value, const Map& map) {
  if (value.is_string()) {
    value = map(value.get_ref<const std::string&>());
  } else if (value.is_array()) {
    for (nlohmann::json& element : value) MapStrings(element, map);
  } else if (value.is_object()) {
    nlohmann::json mapped = nlohmann::json::object();
    for (auto it = value.begin(); it != value.end(); ++it) {
      MapStrings(it.value(), map);
      mapped[map(it.key())] = std::move(it.value());
    }
    value = std::move(mapped);
  }
}

}  // namespace

nlohmann::json ParseJsonBytes(std::string_view text) {
  nlohmann::json value = nlohmann::json::parse(EncodeText(text));
  MapStrings(value, Decode);
  return value;
}

std::string DumpJsonBytes(const nlohmann::json& value, int indent) {
  nlohmann::json encoded = value;
  MapStrings(encoded, Encode);
  // Every reserved code point in the text is one of Encode's: keys, strings
  // and nothing else can hold one.
  return Decode(encoded.dump(indent));
}

}  // namespace fastcuda

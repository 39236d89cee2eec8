#include "src/nvcc/fatbin_container.h"

namespace fastcuda {
namespace {

/// The size of the part of an entry's header that FastCuda reads: kind
/// (2 bytes), version (2), header size (4), payload size (8).
constexpr size_t kEntryHeaderRead = 16;

/// The little-endian unsigned number of `width` bytes at `at`.
uint64_t ReadLittleEndian(std::string_view bytes, size_t at, size_t width) {
  uint64_t value = 0;
  for (size_t i = width; i-- > 0;) value = value << 8 | static_cast<unsigned char>(bytes[at + i]);
  return value;
}

/// Appends `value` as `width` little-endian bytes.
void AppendLittleEndian(std::string& out, uint64_t value, size_t width) {
  for (size_t i = 0; i < width; ++i) out += static_cast<char>(value >> (8 * i) & 0xff);
}

/// Where in the fatbin an error is, for its message.
std::string At(size_t offset) { return " at byte " + std::to_string(offset); }

}  // namespace

Fatbin ReadFatbin(std::string_view bytes) {
  if (bytes.size() < kFatbinHeaderSize) {
    throw FatbinError("not a fatbin: " + std::to_string(bytes.size()) + " bytes, less than its header");
  }
  if (ReadLittleEndian(bytes, 0, 4) != kFatbinMagic) throw FatbinError("not a fatbin: no magic number");
  Fatbin fatbin;
  fatbin.version = static_cast<uint16_t>(ReadLittleEndian(bytes, 4, 2));
  uint64_t header_size = ReadLittleEndian(bytes, 6, 2);
  if (header_size != kFatbinHeaderSize) {
    throw FatbinError("fatbin header of " + std::to_string(header_size) + " bytes, not 16");
  }
  uint64_t body_size = ReadLittleEndian(bytes, 8, 8);
  if (body_size != bytes.size() - kFatbinHeaderSize) {
    throw FatbinError("fatbin says it holds " + std::to_string(body_size) + " bytes after its header, has " +
                      std::to_string(bytes.size() - kFatbinHeaderSize));
  }
  for (size_t at = kFatbinHeaderSize; at < bytes.size();) {
    size_t left = bytes.size() - at;
    if (left < kEntryHeaderRead) throw FatbinError("fatbin entry header truncated" + At(at));
    uint64_t entry_header = ReadLittleEndian(bytes, at + 4, 4);
    uint64_t payload = ReadLittleEndian(bytes, at + 8, 8);
    if (entry_header < kEntryHeaderRead || entry_header > left || payload > left - entry_header) {
      throw FatbinError("fatbin entry overruns the fatbin" + At(at));
    }
    fatbin.entries.push_back(bytes.substr(at, entry_header + payload));
    at += entry_header + payload;
  }
  return fatbin;
}

std::string WriteFatbin(uint16_t version, const std::vector<std::string_view>& entries) {
  size_t body = 0;
  for (std::string_view entry : entries) body += entry.size();
  std::string out;
  out.reserve(kFatbinHeaderSize + body);
  AppendLittleEndian(out, kFatbinMagic, 4);
  AppendLittleEndian(out, version, 2);
  AppendLittleEndian(out, kFatbinHeaderSize, 2);
  AppendLittleEndian(out, body, 8);
  for (std::string_view entry : entries) out.append(entry);
  return out;
}

std::string JoinFatbins(const std::vector<std::string>& parts) {
  if (parts.empty()) throw FatbinError("no fatbin to join");
  std::vector<std::string_view> entries;
  uint16_t version = 0;
  for (size_t i = 0; i < parts.size(); ++i) {
    Fatbin part = ReadFatbin(parts[i]);
    if (i > 0 && part.version != version) throw FatbinError("fatbins of different versions");
    version = part.version;
    entries.insert(entries.end(), part.entries.begin(), part.entries.end());
  }
  return WriteFatbin(version, entries);
}

}  // namespace fastcuda

#include "src/base/ninja_deps.h"

#include <algorithm>
#include <cstring>

namespace fastcuda {
namespace {

constexpr std::string_view kSignature = "# ninjadeps\n";
constexpr int32_t kVersion = 4;
constexpr uint32_t kDepsRecordBit = 0x80000000u;
constexpr uint32_t kMaxRecordSize = (1u << 19) - 1;  // Ninja's own limit

template <typename Number>
Number Load(std::string_view bytes, size_t offset) {
  Number value;
  std::memcpy(&value, bytes.data() + offset, sizeof value);
  return value;
}

template <typename Number>
void Store(std::string& bytes, Number value) {
  bytes.append(reinterpret_cast<const char*>(&value), sizeof value);
}

/// A path record's path: its bytes without the up to three NULs that pad it.
std::string_view PathOfRecord(std::string_view record) {
  std::string_view path = record.substr(0, record.size() - sizeof(uint32_t));
  for (int pad = 0; pad < 3 && !path.empty() && path.back() == '\0'; ++pad) path.remove_suffix(1);
  return path;
}

}  // namespace

NinjaDepsLog ParseNinjaDepsLog(std::string_view bytes) {
  NinjaDepsLog log;
  const size_t header = kSignature.size() + sizeof(int32_t);
  if (bytes.size() < header || !bytes.starts_with(kSignature) ||
      Load<int32_t>(bytes, kSignature.size()) != kVersion) {
    return log;
  }
  size_t offset = header;
  while (offset + sizeof(uint32_t) <= bytes.size()) {
    const uint32_t head = Load<uint32_t>(bytes, offset);
    const uint32_t size = head & ~kDepsRecordBit;
    offset += sizeof(uint32_t);
    if (size > kMaxRecordSize || size % 4 != 0 || size < 4 || offset + size > bytes.size()) break;
    std::string_view record = bytes.substr(offset, size);
    offset += size;
    if (head & kDepsRecordBit) {
      if (size < 12) break;
      const int32_t output = Load<int32_t>(record, 0);
      std::vector<int32_t> inputs;
      for (size_t at = 12; at < size; at += 4) inputs.push_back(Load<int32_t>(record, at));
      const auto known = [&](int32_t id) { return id >= 0 && static_cast<size_t>(id) < log.paths.size(); };
      if (!known(output) || !std::all_of(inputs.begin(), inputs.end(), known)) break;
      log.inputs_of[output] = std::move(inputs);
    } else {
      // The checksum is the complement of the id the path gets: another
      // means a second Ninja wrote to the log at the same time.
      if (~Load<uint32_t>(record, size - 4) != log.paths.size()) break;
      log.paths.emplace_back(PathOfRecord(record));
    }
  }
  return log;
}

std::string FormatNinjaDepsLog(
    const std::vector<std::pair<std::string, std::vector<std::string>>>& inputs_of) {
  std::string bytes(kSignature);
  Store(bytes, kVersion);
  std::map<std::string, uint32_t> ids;
  auto id_of = [&](const std::string& path) {
    auto [it, added] = ids.emplace(path, static_cast<uint32_t>(ids.size()));
    if (added) {
      std::string padded = path + std::string((4 - path.size() % 4) % 4, '\0');
      Store(bytes, static_cast<uint32_t>(padded.size() + 4));
      bytes += padded;
      Store(bytes, ~it->second);
    }
    return it->second;
  };
  for (const auto& [output, inputs] : inputs_of) {
    std::vector<uint32_t> record = {id_of(output), 0, 0};
    for (const std::string& input : inputs) record.push_back(id_of(input));
    Store(bytes, static_cast<uint32_t>(record.size() * 4) | kDepsRecordBit);
    for (uint32_t word : record) Store(bytes, word);
  }
  return bytes;
}

}  // namespace fastcuda

#include "src/base/ninja_log.h"

#include <re2/re2.h>

#include <charconv>
#include <chrono>
#include <cinttypes>
#include <cstring>

namespace fastcuda {
namespace {

uint64_t Load64(const unsigned char* p) {
  uint64_t value;
  std::memcpy(&value, p, sizeof value);
  return value;
}

uint64_t Load32(const unsigned char* p) {
  uint32_t value;
  std::memcpy(&value, p, sizeof value);
  return value;
}

/// Ninja 1.11's and 1.12's command hash (build_log.cc): 64-bit MurmurHash2 by
/// Austin Appleby, with Ninja's seed.
uint64_t MurmurHash64A(std::string_view text) {
  constexpr uint64_t kSeed = 0xDECAFBADDECAFBADull;
  constexpr uint64_t kM = 0xc6a4a7935bd1e995ull;
  constexpr int kR = 47;
  size_t len = text.size();
  const auto* data = reinterpret_cast<const unsigned char*>(text.data());
  uint64_t h = kSeed ^ (len * kM);
  for (; len >= 8; len -= 8, data += 8) {
    uint64_t k = Load64(data) * kM;
    k ^= k >> kR;
    h = (h ^ (k * kM)) * kM;
  }
  if (len > 0) {
    for (size_t i = len; i-- > 0;) h ^= uint64_t(data[i]) << (8 * i);
    h *= kM;
  }
  h ^= h >> kR;
  h *= kM;
  return h ^ (h >> kR);
}

/// The 128-bit product of a and b, its halves back in a (low) and b (high).
void RapidMum(uint64_t& a, uint64_t& b) {
  __uint128_t product = static_cast<__uint128_t>(a) * b;
  a = static_cast<uint64_t>(product);
  b = static_cast<uint64_t>(product >> 64);
}

uint64_t RapidMix(uint64_t a, uint64_t b) {
  RapidMum(a, b);
  return a ^ b;
}

/// Ninja 1.13's command hash: rapidhash (Nicolas De Carli, BSD-2-Clause, after
/// wyhash), the version Ninja vendors (commit 4a6b257), default seed.
uint64_t Rapidhash(std::string_view text) {
  constexpr uint64_t kSecret[3] = {0x2d358dccaa6c78a5ull, 0x8bb84b93962eacc9ull, 0x4b33a62ed433d4a3ull};
  const size_t len = text.size();
  const auto* p = reinterpret_cast<const unsigned char*>(text.data());
  uint64_t seed = 0xbdd89aa982704029ull;
  seed ^= RapidMix(seed ^ kSecret[0], kSecret[1]) ^ len;
  uint64_t a = 0, b = 0;
  if (len <= 16) {
    if (len >= 4) {
      const unsigned char* last = p + len - 4;
      const uint64_t delta = (len & 24) >> (len >> 3);
      a = (Load32(p) << 32) | Load32(last);
      b = (Load32(p + delta) << 32) | Load32(last - delta);
    } else if (len > 0) {
      a = (uint64_t(p[0]) << 56) | (uint64_t(p[len >> 1]) << 32) | p[len - 1];
    }
  } else {
    size_t i = len;
    if (i > 48) {
      uint64_t see1 = seed, see2 = seed;
      do {
        seed = RapidMix(Load64(p) ^ kSecret[0], Load64(p + 8) ^ seed);
        see1 = RapidMix(Load64(p + 16) ^ kSecret[1], Load64(p + 24) ^ see1);
        see2 = RapidMix(Load64(p + 32) ^ kSecret[2], Load64(p + 40) ^ see2);
        p += 48;
        i -= 48;
      } while (i >= 48);
      seed ^= see1 ^ see2;
    }
    if (i > 16) {
      seed = RapidMix(Load64(p) ^ kSecret[2], Load64(p + 8) ^ seed ^ kSecret[1]);
      if (i > 32) seed = RapidMix(Load64(p + 16) ^ kSecret[2], Load64(p + 24) ^ seed);
    }
    a = Load64(p + i - 16);
    b = Load64(p + i - 8);
  }
  a ^= kSecret[1];
  b ^= seed;
  RapidMum(a, b);
  return RapidMix(a ^ kSecret[0] ^ len, b ^ kSecret[1]);
}

/// The next tab-separated field of `line`, taken off its front.
std::string_view TakeField(std::string_view& line) {
  size_t tab = line.find('\t');
  std::string_view field = line.substr(0, tab);
  line.remove_prefix(tab == std::string_view::npos ? line.size() : tab + 1);
  return field;
}

/// Whether `field` is a whole number of `base` that fits in `value`.
template <typename Number>
bool ParseNumber(std::string_view field, Number& value, int base = 10) {
  const char* end = field.data() + field.size();
  auto [stop, error] = std::from_chars(field.data(), end, value, base);
  return error == std::errc() && stop == end && !field.empty();
}

/// Parses one line of the log (without its newline) into `record`: false for a
/// comment or a line of another shape.
bool ParseRecordLine(std::string_view line, NinjaLogRecord& record) {
  if (line.ends_with('\r')) line.remove_suffix(1);
  if (!ParseNumber(TakeField(line), record.start_ms) || !ParseNumber(TakeField(line), record.end_ms) ||
      !ParseNumber(TakeField(line), record.mtime))
    return false;
  std::string_view output = TakeField(line);
  if (output.empty() || line.find('\t') != std::string_view::npos) return false;
  record.output.assign(output);
  return ParseNumber(line, record.command_hash, 16);
}

}  // namespace

std::vector<NinjaLogRecord> ParseNinjaLogRecords(std::string_view text) {
  // Split by hand: a log holds a record per step of every build, and a
  // pattern match per line cost most of a no-op `fastcuda ninja`.
  std::vector<NinjaLogRecord> records;
  NinjaLogRecord next;
  while (!text.empty()) {
    size_t newline = text.find('\n');
    std::string_view line = text.substr(0, newline);
    text.remove_prefix(newline == std::string_view::npos ? text.size() : newline + 1);
    if (ParseRecordLine(line, next)) records.push_back(next);
  }
  return records;
}

LatestNinjaLogRecords LatestRecordsOf(std::string_view text) {
  LatestNinjaLogRecords latest;
  for (NinjaLogRecord& record : ParseNinjaLogRecords(text)) latest[record.output] = std::move(record);
  return latest;
}

int64_t NinjaTimeStamp(std::filesystem::file_time_type time) {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::file_clock::to_sys(time).time_since_epoch())
      .count();
}

std::string FormatNinjaLogRecord(const NinjaLogRecord& record) {
  char numbers[96];
  std::snprintf(numbers, sizeof numbers, "%" PRId64 "\t%" PRId64 "\t%" PRId64 "\t", record.start_ms,
                record.end_ms, record.mtime);
  char hash[24];
  std::snprintf(hash, sizeof hash, "\t%" PRIx64 "\n", record.command_hash);
  return numbers + record.output + hash;
}

std::string NinjaLogHeader(int minor) {
  const int version = minor >= 13 ? 7 : minor == 12 ? 6 : 5;
  return "# ninja log v" + std::to_string(version) + "\n";
}

int NinjaLogVersion(std::string_view text) {
  static const RE2 signature(R"(# ninja log v(\d+)\n)");
  int version = 0;
  re2::StringPiece input(text.data(), text.size());
  return RE2::Consume(&input, signature, &version) ? version : 0;
}

std::optional<uint64_t> NinjaCommandHash(int version, std::string_view command) {
  if (version == 5 || version == 6) return MurmurHash64A(command);
  if (version == 7) return Rapidhash(command);
  return std::nullopt;
}

}  // namespace fastcuda

// Ninja's build log (`.ninja_log`): its records, read and written, and the
// command hashes by which Ninja decides that a command changed.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace fastcuda {

/// One record of `.ninja_log`: an edge's output, when the edge ran (ms from its
/// build's start), the mtime Ninja compares inputs with, and its command's hash.
struct NinjaLogRecord {
  int64_t start_ms = 0;
  int64_t end_ms = 0;
  int64_t mtime = 0;
  std::string output;
  uint64_t command_hash = 0;
};

/// Every record of `.ninja_log` text (formats v5 to v7), in file order; lines
/// of another shape are skipped.
std::vector<NinjaLogRecord> ParseNinjaLogRecords(std::string_view text);

/// The latest record of each output in a log's text, by output: the one
/// Ninja goes by.
using LatestNinjaLogRecords = std::unordered_map<std::string, NinjaLogRecord>;
LatestNinjaLogRecords LatestRecordsOf(std::string_view text);

/// A file's time as Ninja stamps its log records: nanoseconds since the Unix epoch.
int64_t NinjaTimeStamp(std::filesystem::file_time_type time);

/// The record as Ninja writes it, with its newline.
std::string FormatNinjaLogRecord(const NinjaLogRecord& record);

/// The first line of a log that Ninja 1.`minor` writes: v5 up to 1.11, v6 in
/// 1.12, v7 from 1.13 (an older one it would discard).
std::string NinjaLogHeader(int minor);

/// The format version in the log's first line, 0 when it has none.
int NinjaLogVersion(std::string_view text);

/// The hash of `command` that a log of `version` holds: MurmurHash64A (v5, v6;
/// Ninja 1.11, 1.12) or rapidhash (v7; Ninja 1.13); none for a version that
/// FastCuda does not know.
std::optional<uint64_t> NinjaCommandHash(int version, std::string_view command);

}  // namespace fastcuda

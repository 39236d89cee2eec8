#include "src/plan/tu_record.h"

#include <filesystem>

#include <nlohmann/json.hpp>

#include "src/base/json_bytes.h"
#include "src/base/shell_words.h"
#include "src/base/stable_hash.h"
#include "src/plan/graph_dir.h"
#include "src/plan/nvcc_call.h"

namespace fastcuda {
namespace {

/// The start of `key`'s line: its JSON string and a tab (JSON strings hold
/// no raw tab or line break, whatever the key's bytes).
std::string LineStart(const std::string& key) { return DumpJsonBytes(key) + "\t"; }

std::optional<TuRecord> ParseTuRecord(std::string_view text) {
  try {
    nlohmann::json json = ParseJsonBytes(text);
    return TuRecord{json.at("cwd").get<std::string>(),
                    json.at("command_hash").get<std::string>(),
                    json.at("depfiles").get<std::vector<std::string>>(),
                    json.at("captures").get<std::vector<std::string>>(),
                    json.at("cache_result").get<std::string>(),
                    json.at("cache_depfile").get<std::string>(),
                    json.at("landmarks").get<std::vector<std::string>>()};
  } catch (const nlohmann::json::exception&) {
    return std::nullopt;
  }
}

}  // namespace

std::string TuCommandHash(const std::vector<std::string>& command) {
  return StableHashHex(JoinShellWords(command), 16);
}

std::string FormatTuRecords(const std::vector<std::pair<std::string, TuRecord>>& records) {
  std::string text;
  for (const auto& [key, record] : records) {
    nlohmann::json json = {{"cwd", record.cwd},
                           {"command_hash", record.command_hash},
                           {"depfiles", record.depfiles},
                           {"captures", record.captures},
                           {"cache_result", record.cache_result},
                           {"cache_depfile", record.cache_depfile},
                           {"landmarks", record.landmarks}};
    text += LineStart(key) + DumpJsonBytes(json) + "\n";
  }
  return text;
}

std::optional<TuRecord> FindTuRecord(std::string_view text, const std::string& key) {
  const std::string start = LineStart(key);
  size_t at = text.starts_with(start) ? 0 : text.find("\n" + start);
  if (at == std::string_view::npos) return std::nullopt;
  if (at != 0) ++at;
  size_t begin = at + start.size(), end = text.find('\n', begin);
  return ParseTuRecord(
      text.substr(begin, end == std::string_view::npos ? std::string_view::npos : end - begin));
}

std::string TuRecordKey(const std::string& work_dir) {
  return std::filesystem::path(work_dir).filename().string();
}

std::optional<TuRecord> ReadTuRecord(const FileSystem& fs, const std::string& graph_dir,
                                     const std::string& object) {
  std::optional<std::string> text = fs.Read(TuRecordsPath(graph_dir));
  if (!text) return std::nullopt;
  return FindTuRecord(*text, TuRecordKey(WorkDirFor(TuRoot(graph_dir), object)));
}

}  // namespace fastcuda

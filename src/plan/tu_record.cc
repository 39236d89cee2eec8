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

/// The start of the line of the TU whose work dir is `work_dir`: the work
/// dir's name as a JSON string and a tab (JSON strings hold no raw tab or
/// line break, whatever the name's bytes).
std::string LineStart(const std::string& work_dir) {
  return DumpJsonBytes(std::filesystem::path(work_dir).filename().string()) + "\t";
}

/// `path` as the record's line writes it: relative to `work_dir` inside it.
std::string Shortened(const std::string& path, const std::string& work_dir) {
  return path.starts_with(work_dir + "/") ? path.substr(work_dir.size() + 1) : path;
}
std::string Lengthened(const std::string& path, const std::string& work_dir) {
  return path.empty() || path.starts_with('/') ? path : work_dir + "/" + path;
}
std::vector<std::string> Shortened(std::vector<std::string> paths, const std::string& work_dir) {
  for (std::string& path : paths) path = Shortened(path, work_dir);
  return paths;
}
std::vector<std::string> Lengthened(std::vector<std::string> paths, const std::string& work_dir) {
  for (std::string& path : paths) path = Lengthened(path, work_dir);
  return paths;
}

std::optional<TuRecord> ParseTuRecord(std::string_view text, const std::string& work_dir) {
  try {
    nlohmann::json json = ParseJsonBytes(text);
    auto paths = [&](const char* key) {
      return Lengthened(json.at(key).get<std::vector<std::string>>(), work_dir);
    };
    return TuRecord{json.at("cwd").get<std::string>(),
                    json.at("command_hash").get<std::string>(),
                    paths("depfiles"),
                    json.at("source").get<std::string>(),
                    paths("captures"),
                    Lengthened(json.at("cache_result").get<std::string>(), work_dir),
                    Lengthened(json.at("cache_depfile").get<std::string>(), work_dir),
                    paths("landmarks")};
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
  for (const auto& [work_dir, record] : records) {
    nlohmann::json json = {{"cwd", record.cwd},
                           {"command_hash", record.command_hash},
                           {"depfiles", Shortened(record.depfiles, work_dir)},
                           {"source", record.source},
                           {"captures", Shortened(record.captures, work_dir)},
                           {"cache_result", Shortened(record.cache_result, work_dir)},
                           {"cache_depfile", Shortened(record.cache_depfile, work_dir)},
                           {"landmarks", Shortened(record.landmarks, work_dir)}};
    text += LineStart(work_dir) + DumpJsonBytes(json) + "\n";
  }
  return text;
}

std::optional<TuRecord> FindTuRecord(std::string_view text, const std::string& work_dir) {
  const std::string start = LineStart(work_dir);
  size_t line = 0;
  if (!text.starts_with(start)) {
    line = text.find("\n" + start);
    if (line == std::string_view::npos) return std::nullopt;
    ++line;
  }
  size_t begin = line + start.size(), end = text.find('\n', begin);
  return ParseTuRecord(
      text.substr(begin, end == std::string_view::npos ? std::string_view::npos : end - begin), work_dir);
}

std::optional<TuRecord> ReadTuRecord(const FileSystem& fs, const std::string& graph_dir,
                                     const std::string& object) {
  std::optional<std::string> text = fs.Read(TuRecordsPath(graph_dir));
  if (!text) return std::nullopt;
  return FindTuRecord(*text, WorkDirFor(TuRoot(graph_dir), object));
}

}  // namespace fastcuda

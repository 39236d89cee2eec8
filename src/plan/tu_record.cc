#include "src/plan/tu_record.h"

#include <nlohmann/json.hpp>

#include "src/base/json_bytes.h"

namespace fastcuda {

std::string FormatTuRecord(const TuRecord& record) {
  nlohmann::json json = {{"cwd", record.cwd},
                         {"command", record.command},
                         {"depfiles", record.depfiles},
                         {"captures", record.captures},
                         {"cache_result", record.cache_result},
                         {"cache_depfile", record.cache_depfile},
                         {"landmarks", record.landmarks}};
  return DumpJsonBytes(json, 1) + "\n";
}

std::optional<TuRecord> ParseTuRecord(const std::string& text) {
  try {
    nlohmann::json json = ParseJsonBytes(text);
    return TuRecord{json.at("cwd").get<std::string>(), json.at("command").get<std::vector<std::string>>(),
                    json.at("depfiles").get<std::vector<std::string>>(),
                    json.at("captures").get<std::vector<std::string>>(),
                    // An earlier FastCuda's record has no lookup's files.
                    json.value("cache_result", std::string()), json.value("cache_depfile", std::string()),
                    json.value("landmarks", std::vector<std::string>())};
  } catch (const nlohmann::json::exception&) {
    return std::nullopt;
  }
}

}  // namespace fastcuda

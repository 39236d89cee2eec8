#include "src/plan/tu_record.h"

#include <nlohmann/json.hpp>
#include <set>
#include <string_view>

#include "src/base/json_bytes.h"

namespace fastcuda {

std::string FormatTuRecord(const TuRecord& record) {
  nlohmann::json json = {{"cwd", record.cwd}, {"command", record.command}, {"depfiles", record.depfiles}};
  return DumpJsonBytes(json, 1) + "\n";
}

std::optional<TuRecord> ParseTuRecord(const std::string& text) {
  try {
    nlohmann::json json = ParseJsonBytes(text);
    return TuRecord{json.at("cwd").get<std::string>(),
                    json.at("command").get<std::vector<std::string>>(),
                    json.at("depfiles").get<std::vector<std::string>>()};
  } catch (const nlohmann::json::exception&) {
    return std::nullopt;
  }
}

std::vector<std::string> WithoutDepfileOptions(const std::vector<std::string>& args) {
  static const std::set<std::string_view> flags = {
      "-MD", "-MMD", "--generate-dependencies-with-compile",
      "--generate-nonsystem-dependencies-with-compile"};
  static const std::set<std::string_view> with_value = {
      "-MT", "-MF", "--dependency-output", "--dependency-target-name"};
  std::vector<std::string> kept;
  for (size_t i = 0; i < args.size(); ++i) {
    std::string_view word = args[i];
    std::string_view name = word.substr(0, word.find('='));
    if (flags.count(word) || with_value.count(name)) {
      if (with_value.count(word)) ++i;  // the value is the next word
      continue;
    }
    kept.push_back(args[i]);
  }
  return kept;
}

}  // namespace fastcuda

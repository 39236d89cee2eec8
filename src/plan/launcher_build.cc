#include "src/plan/launcher_build.h"

#include <algorithm>
#include <nlohmann/json.hpp>

#include "src/base/json_bytes.h"

namespace fastcuda {

using nlohmann::json;

std::string FormatGraphObjects(const std::vector<GraphObject>& objects) {
  json list = json::array();
  for (const GraphObject& tu : objects) list.push_back({{"object", tu.object}, {"source", tu.source}});
  return DumpJsonBytes(list, 0) + "\n";
}

std::vector<GraphObject> ParseGraphObjects(const std::string& text) {
  try {
    std::vector<GraphObject> objects;
    for (const json& tu : ParseJsonBytes(text)) {
      objects.push_back({tu.at("object").get<std::string>(), tu.at("source").get<std::string>()});
    }
    return objects;
  } catch (const json::exception&) {
    return {};
  }
}

std::vector<std::string> ObjectsInScope(const std::vector<GraphObject>& objects,
                                        const std::set<std::string>& needed,
                                        const std::set<std::string>& caret_sources) {
  std::vector<std::string> in_scope;
  for (const GraphObject& tu : objects) {
    if (needed.count(tu.object) || caret_sources.count(tu.source)) in_scope.push_back(tu.object);
  }
  return in_scope;
}

std::string FormatLauncherBuild(const LauncherBuild& build) {
  return DumpJsonBytes(
             {{"outer_build", build.outer_build}, {"succeeded", build.succeeded}, {"objects", build.objects}},
             0) +
         "\n";
}

std::optional<LauncherBuild> ParseLauncherBuild(const std::string& text) {
  try {
    json document = ParseJsonBytes(text);
    return LauncherBuild{document.at("outer_build").get<std::string>(), document.at("succeeded").get<bool>(),
                         document.at("objects").get<std::vector<std::string>>()};
  } catch (const json::exception&) {
    return std::nullopt;
  }
}

bool BuiltForThisBuild(const LauncherBuild& build, const std::string& outer_build,
                       const std::string& object) {
  return !outer_build.empty() && build.outer_build == outer_build && build.succeeded &&
         std::binary_search(build.objects.begin(), build.objects.end(), object);
}

}  // namespace fastcuda

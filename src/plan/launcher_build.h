// What `fastcuda --build-graph` (the launcher of the CMake module under
// Ninja) keeps in the graph directory between its calls: which TUs the
// graph builds, and which of them it built for the outer build now running.
#pragma once

#include <optional>
#include <set>
#include <string>
#include <vector>

namespace fastcuda {

/// A TU of the graph as the launcher looks it up.
struct GraphObject {
  std::string object;  ///< absolute: the object, as the inner manifest names it
  std::string source;  ///< absolute
};

/// `objects.json`, written by the generator; and back (empty on damage: the
/// launcher then builds only its own TU).
std::string FormatGraphObjects(const std::vector<GraphObject>& objects);
std::vector<GraphObject> ParseGraphObjects(const std::string& text);

/// The objects of the graph that an outer build needs: those among `needed`
/// (the absolute paths of its targets and of every input they need), and
/// those whose source a `SOURCE^` target names (Ninja's "the first edge
/// using SOURCE", which IDEs use to compile one file).
std::vector<std::string> ObjectsInScope(const std::vector<GraphObject>& objects,
                                        const std::set<std::string>& needed,
                                        const std::set<std::string>& caret_sources);

/// The graph's build for one outer build: the first launcher call of that
/// build runs the graph for every TU the build needs, at once; the calls
/// after it find their objects built, and trust them only if that run
/// succeeded as a whole (a run that failed somewhere may have stopped
/// between a TU's steps: those calls build their own TU again).
struct LauncherBuild {
  std::string outer_build;           ///< the outer Ninja: "PID START_TICKS"
  bool succeeded = false;            ///< every step of the run succeeded
  std::vector<std::string> objects;  ///< sorted: the objects the run built
};

/// `launcher-build.json`; and back (nullopt on damage).
std::string FormatLauncherBuild(const LauncherBuild& build);
std::optional<LauncherBuild> ParseLauncherBuild(const std::string& text);

/// True when `build` ran, for the outer build `outer_build`, every step of
/// `object`'s TU and all of them succeeded.
bool BuiltForThisBuild(const LauncherBuild& build, const std::string& outer_build, const std::string& object);

}  // namespace fastcuda

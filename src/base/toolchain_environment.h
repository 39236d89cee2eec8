// The environment that nvcc and the programs it runs read.
#pragma once

#include <map>
#include <string>

namespace fastcuda {

/// The variables of `ambient` that nvcc or its sub-steps read (include
/// paths, nvcc's own flags and host compiler...), beyond those the dryrun
/// sets; not PATH, whose programs are identified instead. A graph sets them for every step, so that
/// a change reruns the steps (restat skips what comes out the same), and
/// they are part of every key that decides whether to plan anew.
std::map<std::string, std::string> ToolchainEnvironment(const std::map<std::string, std::string>& ambient);

/// The variable `name` of `environment`, or `fallback` when it is unset or
/// empty.
std::string EnvironmentValue(const std::map<std::string, std::string>& environment, const std::string& name,
                             const std::string& fallback = "");

/// Ends the value of a steps' PATH that goes on with the PATH the step
/// inherits: nvcc's sub-steps search its own directories, then the PATH
/// nvcc was given, which is the build's, and only the programs found on it
/// are part of the keys, not its text.
inline constexpr char kInheritedPath[] = "$PATH";

/// `value`, a PATH that nvcc made by putting its own directories before
/// `ambient` (the PATH it was run with), with `ambient` replaced by
/// kInheritedPath; as it is where it does not end so, or `ambient` is empty.
std::string InheritingPath(const std::string& value, const std::string& ambient);

/// `value` (InheritingPath) with kInheritedPath replaced by `inherited`.
std::string ExpandInheritedPath(const std::string& value, const std::string& inherited);

/// The variables as one text, for keys.
std::string EnvironmentKey(const std::map<std::string, std::string>& environment);

}  // namespace fastcuda

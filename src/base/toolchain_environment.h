// The environment that nvcc and the programs it runs read.
#pragma once

#include <map>
#include <string>

namespace fastcuda {

/// The variables of `ambient` that nvcc or its sub-steps read (include
/// paths, nvcc's own flags and host compiler, the program search path...),
/// beyond those the dryrun sets. A graph sets them for every step, so that
/// a change reruns the steps (restat skips what comes out the same), and
/// they are part of every key that decides whether to plan anew.
std::map<std::string, std::string> ToolchainEnvironment(const std::map<std::string, std::string>& ambient);

/// The variable `name` of `environment`, or `fallback` when it is unset or
/// empty.
std::string EnvironmentValue(const std::map<std::string, std::string>& environment, const std::string& name,
                             const std::string& fallback = "");

/// The variables as one text, for keys.
std::string EnvironmentKey(const std::map<std::string, std::string>& environment);

}  // namespace fastcuda

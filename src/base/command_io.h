// What a command does outside itself, made once per command at the CLI edge.
#pragma once

#include <map>
#include <string>

#include "src/base/file_system.h"
#include "src/base/process.h"

namespace fastcuda {

/// The processes, files and environment of one command: made once, in
/// main.cc, and passed down, so that every process goes through `runner`,
/// every file effect through `fs` and nothing below reads the process's
/// environment itself; a test runs a command on fakes and a map.
struct CommandIo {
  CommandRunner& runner;
  WritableFileSystem& fs;
  /// The environment the command was started in (CurrentEnvironment),
  /// read with EnvironmentValue.
  const std::map<std::string, std::string>& environment;
};

}  // namespace fastcuda

// Ninja's deps log (`.ninja_deps`): what each output of a `deps = gcc` edge
// read when its edge last ran, read and written.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace fastcuda {

/// A deps log's content: every path it names, by id, and the inputs of each
/// output by id (the last record for an output; earlier ones Ninja ignores).
/// Paths are as Ninja names them: relative to the directory it runs in, or absolute.
struct NinjaDepsLog {
  std::vector<std::string> paths;
  std::map<int32_t, std::vector<int32_t>> inputs_of;
};

/// The log's records (format v4, Ninja 1.10 to 1.13), up to the first one
/// that is cut short or out of order (a log that a killed Ninja left half
/// written, or that two wrote at once): Ninja stops there too. A text of
/// another format gives an empty log.
NinjaDepsLog ParseNinjaDepsLog(std::string_view bytes);

/// The log as Ninja writes it: a path record for each path the first time
/// it is named, then a deps record for each output, with `mtime` 0.
std::string FormatNinjaDepsLog(
    const std::vector<std::pair<std::string, std::vector<std::string>>>& inputs_of);

}  // namespace fastcuda

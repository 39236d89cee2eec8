// Reading a Ninja manifest into a Manifest, statement by statement as Ninja
// 1.11-1.13's ManifestParser does, with the same errors.
#pragma once

#include <string>

#include "ninja-gen/manifest.h"
#include "src/base/file_system.h"

namespace fastcuda {

/// Reads the manifest at `path` and every file it includes or subninjas,
/// each opened through `fs` by the path its statement names (Ninja opens
/// them relative to the directory it runs in, not to the including file).
/// Throws ManifestError for a manifest Ninja would refuse, a file that
/// cannot be read, or a file that includes itself.
Manifest ReadManifest(const FileSystem& fs, const std::string& path);

}  // namespace fastcuda

// The host compiler that an nvcc call runs.
#pragma once

#include <map>
#include <string>

#include "src/base/file_system.h"

namespace fastcuda {

/// The host compiler nvcc runs in `cwd` for the -ccbin value
/// `compiler_bindir` (NvccInvocation's; "" without one): that value, else
/// `environment`'s NVCC_CCBIN, else gcc. A directory stands for the gcc in it, as nvcc reads
/// it, even named bare (`-ccbin tools`); the compiler comes back absolute
/// where it names a path, else as a bare name, for PATH.
std::string HostCompilerOf(const std::string& compiler_bindir,
                           const std::map<std::string, std::string>& environment, const std::string& cwd,
                           const FileSystem& fs);

}  // namespace fastcuda

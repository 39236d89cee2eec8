// The launcher, `fastcuda [--graph DIR] [LAUNCHER...] NVCC ARGS...`: the
// parts that decide, testable on a fake disk.
#pragma once

#include <string>
#include <vector>

#include "src/base/file_system.h"

namespace fastcuda {

/// `fastcuda [--graph DIR] [LAUNCHER...] NVCC ARGS...`, taken apart.
struct LauncherCall {
  std::string graph_dir;              ///< the global graph that may have built the object
  std::vector<std::string> launcher;  ///< ccache, sccache... before nvcc
  std::vector<std::string> nvcc;      ///< nvcc and its arguments
};

/// Takes the call apart: words before the first that is nvcc are launchers;
/// with no such word the first is the compiler (an nvcc of another name).
/// Throws std::invalid_argument when there is none.
LauncherCall ParseLauncherCall(const std::vector<std::string>& args);

/// With `--graph DIR`: when the global graph has built this object from the
/// same command and has seen the current version of every file it depends
/// on, writes the depfile the caller asked for and returns true. The graph's
/// preprocessing rewrites its kept depfiles each time it runs, so a source
/// or header newer than the depfile that lists it means the graph has not
/// caught up (the object's own mtime says nothing: restat keeps an unchanged
/// object's old one). Never trusts a stale object. An object older than its
/// newest dependency gets that one's mtime: CMake's Ninja records the
/// object's mtime after this call and would otherwise find it older than a
/// touched header on every later build, and run this call again.
bool UseGraphResult(const LauncherCall& call, const std::string& cwd, WritableFileSystem& fs);

}  // namespace fastcuda

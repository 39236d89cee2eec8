// The launcher, `fastcuda [--graph DIR] [LAUNCHER...] NVCC ARGS...`: the
// parts that decide, testable on a fake disk.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "src/base/file_system.h"
#include "src/plan/tu_record.h"

namespace fastcuda {

/// `fastcuda [--graph DIR | --build-graph DIR] [LAUNCHER...] NVCC ARGS...`,
/// taken apart.
struct LauncherCall {
  std::string graph_dir;              ///< the global graph that may have built the object
  bool builds_graph = false;          ///< --build-graph: the call runs that graph (BuildThroughGraph)
  std::vector<std::string> launcher;  ///< ccache, sccache... before nvcc
  std::vector<std::string> nvcc;      ///< nvcc and its arguments
};

/// Takes the call apart: words before the first that is nvcc are launchers;
/// with no such word the first is the compiler (an nvcc of another name).
/// Throws std::invalid_argument when there is none.
LauncherCall ParseLauncherCall(const std::vector<std::string>& args);

/// True where `record` is of this very call: its working directory and
/// command (without the depfile options, which the launcher serves itself).
bool RecordIsOfCall(const std::optional<TuRecord>& record, const LauncherCall& call, const std::string& cwd);

/// With `--graph DIR`: when the global graph has built this object from the
/// same command and has seen the current version of every file it depends
/// on, writes the depfile the caller asked for and returns the TU's record
/// (its captures to replay); else nullopt. The graph's
/// preprocessing rewrites its kept depfiles each time it runs, so a source
/// or header newer than the depfile that lists it means the graph has not
/// caught up (the object's own mtime says nothing: restat keeps an unchanged
/// object's old one). Never trusts a stale object. An object older than its
/// newest dependency gets that one's mtime: CMake's Ninja records the
/// object's mtime after this call and would otherwise find it older than a
/// touched header on every later build, and run this call again.
std::optional<TuRecord> UseGraphResult(const LauncherCall& call, const std::string& cwd,
                                       WritableFileSystem& fs);

/// Prints what steps saved under the `captures` prefixes (WriteCapture), in
/// nvcc's order, up to the first failure; returns that failure's exit code,
/// or 0. Steps that did not run this time were up to date and replay what
/// they printed when they last ran, as nvcc would print it again.
int ReplayCaptures(const std::vector<std::string>& captures, const FileSystem& fs);

/// The end of a launcher that a signal stopped (its Ninja has stopped too,
/// and the outputs are removed): nvcc exits with status 255 on SIGTERM and
/// dies of the other signals.
int ExitLikeNvccOn(int signal);

}  // namespace fastcuda

// Steps that read the sources again: a step that reads them reruns when a
// file it read has changed since it started, whatever that file's mtime says.
//
// Ninja reruns an edge when an input is newer than its output. nvcc run
// whole by Ninja reruns when any input of the TU is newer than the object;
// split into steps, a file restored with an older mtime (`cp -p`, `rsync
// -a`, `tar x`) beside an edit elsewhere in the TU, or an edit after a
// future mtime that restat wrote into Ninja 1.11's log, left a step's old
// output in place. A file's change time (ctime) cannot be set back, so a
// step whose inputs all changed before it started read them as they are.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "src/base/file_system.h"
#include "src/base/ninja_deps.h"

namespace fastcuda {

/// The outputs (as Ninja names them) of the steps that started at
/// `started` (ParseSourceReads) and read, as the deps log says, a file
/// that is gone or has changed since (ChangeTime at or after the start).
/// Relative paths are relative to `ninja_dir`, where Ninja runs.
std::vector<std::string> StepsToReread(const NinjaDepsLog& deps,
                                       const std::map<std::string, int64_t>& started,
                                       const std::string& ninja_dir, const WritableFileSystem& fs);

/// Makes the next build of Ninja in `ninja_dir` rerun every step of the
/// graph directory `dir` that StepsToReread finds: the latest record of its
/// output in Ninja's log (GraphNinjaLogPath, the deps log beside it) gets a
/// command hash that no command has, which every Ninja version takes for a
/// changed command whatever the mtimes say. The output stays, so that
/// restat still skips what follows an output that comes out the same (in a
/// log of a format FastCuda does not know, the output goes instead).
/// Returns the outputs.
std::vector<std::string> RereadChangedSources(const std::string& dir, const std::string& ninja_dir,
                                              WritableFileSystem& fs);

/// The earliest start of a step that read each file (absolute), as
/// SourceReadLine lines: kept in `dir`'s ReadFilesPath, made from the deps
/// log and the starts, and made again where either has changed since.
std::string IndexReadFiles(const std::string& dir, const std::string& ninja_dir, WritableFileSystem& fs);

/// A file that RereadChangedSources would rerun a step for (the first in
/// the index), nullopt where there is none, changing nothing but the
/// index (IndexReadFiles): for the check that a build has
/// nothing to do, which then reads neither log and stats each file once,
/// however many steps read it.
std::optional<std::string> SourceChangedSinceRead(const std::string& dir, const std::string& ninja_dir,
                                                  WritableFileSystem& fs);

}  // namespace fastcuda

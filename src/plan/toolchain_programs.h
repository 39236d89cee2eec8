// The programs whose identity decides what a dryrun says and what the steps
// write: nvcc, the host compilers and what the steps find on PATH, behind
// paths that may stay the same.
#pragma once

#include <map>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "src/base/dryrun_runner.h"
#include "src/base/file_system.h"
#include "src/graph/step_graph.h"

namespace fastcuda {

/// The variable that carries a call's host compiler identity in the steps'
/// environment (`nvcc.env`, which every step depends on): a compiler
/// switched or upgraded behind the same path changes the file, and so
/// reruns the steps even where their commands come out the same (a
/// same-family upgrade keeps cudafe++'s `--gnu_version`).
inline constexpr char kHostCompilerVariable[] = "FASTCUDA_HOST_COMPILER";

/// The variable that carries, in the steps' environment, the identities of
/// the programs they find on the PATH they inherit (ProgramsOnPath): one
/// found elsewhere reruns them, where PATH's text alone changed none.
inline constexpr char kPathProgramsVariable[] = "FASTCUDA_PATH_PROGRAMS";

/// An identity as one text, for keys.
std::string IdentityKey(const ProgramIdentity& identity);

/// `toolchain` (ToolchainEnvironment) with the host compiler's identity in
/// kHostCompilerVariable: the environment of a call's steps.
std::map<std::string, std::string> WithHostCompiler(std::map<std::string, std::string> toolchain,
                                                    const ProgramIdentity& host);

/// Identifies each program once (DryrunRunner::Identify), from several
/// threads, and keeps what it found by the name it was asked for.
class ProgramIdentifier {
 public:
  explicit ProgramIdentifier(const DryrunRunner& runner) : runner_(runner) {}
  ProgramIdentity Identify(const std::string& program);
  std::map<std::string, ProgramIdentity> Identified() const;

 private:
  const DryrunRunner& runner_;
  mutable std::mutex mutex_;
  std::map<std::string, ProgramIdentity> identified_;
};

/// The programs that the steps of `graph` look for on the PATH they inherit
/// (kInheritedPath): the bare names their commands run (`gcc`, `nvcc` run
/// whole) but those found in the directories that nvcc puts first
/// (`ptxas`, `cudafe++`), and `as`, which gcc runs from PATH. Not their
/// launchers (`ccache`): one gives the objects its program writes, and
/// dropping it reruns only the steps it ran. None where the steps' PATH is
/// one of nvcc's own.
std::vector<std::string> ProgramsOnPath(const StepGraph& graph, const FileSystem& fs);

/// Identifies the ProgramsOnPath of `graph` and sets them in its
/// environment (kPathProgramsVariable), so that `identifier` records them
/// for the next generation to compare (ChangedPrograms).
void IdentifyPathPrograms(StepGraph& graph, ProgramIdentifier& identifier, const FileSystem& fs);

/// The programs of `record` (FormatProgramRecord: by the names they were
/// identified by) that `runner` now identifies otherwise, with what they
/// are now, as one text: "" where none changed. Runs no program: a stat
/// each, so that a build with nothing to do can ask every time.
std::string ChangedPrograms(std::string_view record, const DryrunRunner& runner);

}  // namespace fastcuda

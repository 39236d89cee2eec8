// The entry points of fastcuda's sub-commands: each runs its processes,
// reads and writes its files and reads the environment through the
// CommandIo that main.cc makes.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "src/base/command_io.h"

namespace fastcuda {

/// `fastcuda NVCC ARGS...`: behaves like `NVCC ARGS...`, sub-steps run by Ninja.
int LauncherMain(const std::vector<std::string>& args, const CommandIo& io);

/// `fastcuda gen --out DIR -- NVCC ARGS...`: writes DIR/build.ninja.
int GenMain(const std::vector<std::string>& args, const CommandIo& io);

/// `fastcuda build --compdb FILE --out DIR [-j N]`: generates if needed, runs Ninja.
int BuildMain(const std::vector<std::string>& args, const CommandIo& io);

/// `fastcuda step ...`: runs one sub-step inside a Ninja edge.
int StepMain(const std::vector<std::string>& args, const CommandIo& io);

/// `fastcuda merge-depfiles [--phony-targets] ...`: writes the depfile nvcc
/// was asked for, from kept depfiles of `--source` (KeptDependencies); with
/// `--skip-on-hit RESULT`, where the whole-call cache's lookup hit, from the
/// `--on-hit` depfiles alone.
int MergeDepfilesMain(const std::vector<std::string>& args, const CommandIo& io);

/// `fastcuda ladder-dyndep PLAN FILE`: writes the priority ladder's dyndep
/// file from PLAN (FormatLadderDyndepPlan) unless FILE holds it already.
int LadderDyndepMain(const std::vector<std::string>& args, const CommandIo& io);

/// `fastcuda write-fatbin-placeholder --cwd DIR whole|relocatable FILE`: writes
/// FatbinPlaceholder unless FILE holds it already.
int WriteFatbinPlaceholderMain(const std::vector<std::string>& args, const CommandIo& io);

/// `fastcuda write-text [--cwd DIR] TEXT FILE`: writes TEXT unless FILE holds it already.
int WriteTextMain(const std::vector<std::string>& args, const CommandIo& io);

/// `fastcuda toolchain-stamp FILE [RECORD]`: writes the key of the toolchain
/// environment (EnvironmentKey of ToolchainEnvironment: CPATH, NVCC_*_FLAGS,
/// ...) and of the programs of RECORD (ToolchainProgramsPath) that changed
/// since a generation recorded them (ChangedPrograms: a host compiler
/// switched behind its path) unless FILE holds it already, so that a build
/// whose objects depend on FILE (restat) recompiles them when either changes
/// what nvcc writes. Unchanged programs add nothing, so that the record's
/// first writing changes no stamp.
int ToolchainStampMain(const std::vector<std::string>& args, const CommandIo& io);

/// `fastcuda trace|report|table|graph DIR`: views of the last build.
int ViewMain(const std::string& view, const std::vector<std::string>& args, const CommandIo& io);

/// Prints `fastcuda: MESSAGE` on stderr.
void Complain(const std::string& message);

/// Complain, under FASTCUDA_VERBOSE=1 of `environment` only: why FastCuda
/// took a slower way.
void ComplainIfVerbose(const std::map<std::string, std::string>& environment, const std::string& message);

}  // namespace fastcuda

// fastcuda's command line: sub-commands, or the nvcc launcher. The edge:
// the one place that makes the real runner and file system and reads the
// environment (tests/check_io.sh).
#include <filesystem>
#include <iostream>
#include <map>
#include <string>
#include <vector>

#include "fastcuda_commit.h"
#include "src/base/command_io.h"
#include "src/base/file_system.h"
#include "src/base/process.h"
#include "src/cli/commands.h"
#include "src/cli/launcher.h"
#include "src/cli/ninja_command.h"
#include "src/cli/whole_call_cache_command.h"

namespace fastcuda {

namespace {

/// The words of a command line after `fastcuda` (and after a sub-command's name).
using Arguments = std::vector<std::string>;

/// Who types a sub-command: the usage lists only those that people do.
enum class Audience {
  kPeople,
  kNinjaEdges,  ///< written into the manifests FastCuda generates
};

/// One sub-command, as in Ninja's `kTools[]`: a row of kSubCommands.
struct SubCommand {
  const char* name;                                         ///< the first word of the command line
  const char* synopsis;                                     ///< the arguments after it
  const char* description;                                  ///< one line
  int (*main)(const Arguments& args, const CommandIo& io);  ///< gets the words after the name
  Audience audience;
};

/// `fastcuda --version`: the version, and the commit it was built from.
int VersionMain(const Arguments&, const CommandIo&) {
  std::cout << "fastcuda " << FASTCUDA_VERSION << " (commit " << FASTCUDA_COMMIT << ")\n";
  return 0;
}

/// Every sub-command, in the order the usage lists them.
constexpr SubCommand kSubCommands[] = {
    {"gen", "--out DIR (-- NVCC ARGS... | --compdb FILE)",
     "write DIR/build.ninja for one nvcc call or a whole compile database", GenMain, Audience::kPeople},
    {"build", "--compdb FILE --out DIR [-j N]", "generate when needed, then build with Ninja", BuildMain,
     Audience::kPeople},
    {"ninja", "[-C DIR] [-f FILE] [NINJA ARGS...] [TARGETS...]",
     "ninja on a generator's build.ninja, each nvcc compile split into its sub-steps", NinjaMain,
     Audience::kPeople},
    {"trace", "[--svg] DIR [-o FILE]", "the last build: Chrome/Perfetto JSON, or an SVG timeline",
     [](const Arguments& args, const CommandIo& io) { return ViewMain("trace", args, io); },
     Audience::kPeople},
    {"report", "DIR [-j N]", "why the build took as long as it did",
     [](const Arguments& args, const CommandIo& io) { return ViewMain("report", args, io); },
     Audience::kPeople},
    {"table", "DIR [-o FILE]", "CSV of step times, output sizes, peak memory",
     [](const Arguments& args, const CommandIo& io) { return ViewMain("table", args, io); },
     Audience::kPeople},
    {"graph", "DIR [-o FILE]", "DOT of the step graph",
     [](const Arguments& args, const CommandIo& io) { return ViewMain("graph", args, io); },
     Audience::kPeople},
    {"--version", "", "the version and the commit it was built from", VersionMain, Audience::kPeople},
    {"step", "[OUTPUT...] [OPTION...] -- COMMAND", "run one sub-step inside a Ninja edge", StepMain,
     Audience::kNinjaEdges},
    {"merge-depfiles",
     "[--phony-targets | --compact] [--cwd DIR] [--target T] [--source S] [--skip-on-hit RESULT --on-hit "
     "DEPFILE...] -o FILE DEPFILE...",
     "write the depfile nvcc was asked for", MergeDepfilesMain, Audience::kNinjaEdges},
    {"ladder-dyndep", "PLAN FILE",
     "write the priority ladder's dyndep file: the steps of the TUs whose cache lookup missed",
     LadderDyndepMain, Audience::kNinjaEdges},
    {"write-text", "[--cwd DIR] TEXT FILE", "write TEXT unless FILE holds it already", WriteTextMain,
     Audience::kNinjaEdges},
    {"toolchain-stamp", "FILE [RECORD]",
     "write the key of the toolchain environment and programs unless FILE holds it already",
     ToolchainStampMain, Audience::kNinjaEdges},
    {"write-fatbin-placeholder", "--cwd DIR whole|relocatable FILE",
     "write FatbinPlaceholder unless FILE holds it already", WriteFatbinPlaceholderMain,
     Audience::kNinjaEdges},
};

/// The usage before the sub-commands: the launcher form, which has no name to put in a row.
constexpr const char* kLauncherUsage = R"(usage:
  fastcuda [--graph DIR | --build-graph DIR] [LAUNCHER...] NVCC ARGS...
                                          compile like NVCC ARGS..., sub-steps in parallel;
                                          LAUNCHER (ccache...) runs the host compile
                                          (sccache: also cudafe++, cicc and ptxas);
                                          DIR: a global graph that may have built it already
                                          (--build-graph: that the call runs itself)
)";

/// The usage after the sub-commands.
constexpr const char* kUsageNotes =
    R"(  (DIR: a gen/build --out directory, or a launcher work dir OBJDIR/.fastcuda/OBJ)
environment: FASTCUDA_JOBS, FASTCUDA_NINJA, FASTCUDA_POOLS (e.g. cicc=4,ptxas=8),
             FASTCUDA_VERBOSE=1 (say why nvcc runs itself), FASTCUDA_MEMORY_BUDGET,
             FASTCUDA_MODULE_ID=nvcc|own, FASTCUDA_SPLIT_COMPILE=off|auto|N,
             FASTCUDA_EARLY_HOST=on|off (the host compile does not wait for the device code),
             FASTCUDA_HOST_LAUNCHER (runs the host compiles: ccache, distcc...),
             FASTCUDA_DEVICE_LAUNCHER (runs cicc, ptxas, fatbinary: sccache, a remote runner),
             FASTCUDA_REMOTE=grpc://HOST:PORT (FastCuda's remote client runs them), with
             FASTCUDA_LOCAL_JOBS and FASTCUDA_REMOTE_JOBS (the steps at once on each side),
             FASTCUDA_PROGRESS=0 (no progress of a graph run as a job of a Ninja)
)";

/// The usage's column of descriptions; a longer command line puts its
/// description on the next line.
constexpr size_t kDescriptionColumn = 42;

/// `  fastcuda NAME SYNOPSIS`, then the description at kDescriptionColumn.
std::string UsageLine(const SubCommand& command) {
  std::string line = std::string("  fastcuda ") + command.name;
  if (*command.synopsis) line += std::string(" ") + command.synopsis;
  if (line.size() + 2 > kDescriptionColumn) line += "\n" + std::string(kDescriptionColumn, ' ');
  else line.resize(kDescriptionColumn, ' ');
  return line + command.description + "\n";
}

/// The launcher form, the sub-commands that people type, and the environment.
std::string Usage() {
  std::string usage = kLauncherUsage;
  for (const SubCommand& command : kSubCommands) {
    if (command.audience == Audience::kPeople) usage += UsageLine(command);
  }
  return usage + kUsageNotes;
}

/// Runs the sub-command that the first word names; any other first word
/// begins a compile for the launcher.
int Dispatch(const Arguments& args, const CommandIo& io) {
  if (args.empty() || args[0] == "--help" || args[0] == "-h") {
    std::cout << Usage();
    return args.empty() ? 2 : 0;
  }
  for (const SubCommand& command : kSubCommands) {
    if (args[0] == command.name) return command.main(Arguments(args.begin() + 1, args.end()), io);
  }
  return LauncherMain(args, io);
}

}  // namespace
}  // namespace fastcuda

int main(int argc, char** argv) {
  fastcuda::CloseInheritedDescriptor();
  try {
    std::vector<std::string> args(argv + 1, argv + argc);
    fastcuda::RealCommandRunner runner;
    fastcuda::RealFileSystem fs;
    const std::map<std::string, std::string> environment = fastcuda::CurrentEnvironment();
    const fastcuda::CommandIo io{runner, fs, environment};
    // Linked as `ninja`, fastcuda is `fastcuda ninja` for generators that run
    // `ninja` from PATH (PyTorch's cpp_extension).
    if (std::filesystem::path(argv[0]).filename() == "ninja") return fastcuda::NinjaMain(args, io);
    // Run by ccache in place of nvcc, for a lookup or a store of a graph.
    if (fastcuda::RunAsCachePrefix(environment)) return fastcuda::CachePrefixMain(args, io);
    return fastcuda::Dispatch(args, io);
  } catch (const fastcuda::Interrupted& stop) {
    return fastcuda::ExitLikeNvccOn(stop.signal);
  } catch (const std::exception& error) {
    fastcuda::Complain(error.what());
    return 2;
  }
}

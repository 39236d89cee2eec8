// What FastCuda needs to know of an nvcc command line before splitting it.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "src/base/file_system.h"

namespace fastcuda {

/// How nvcc was asked to write a depfile (-MD, -MMD, -MF, -MT, -MP and long forms).
struct DepfileRequest {
  std::string target;          ///< -MT; empty means the object (nvcc's default)
  bool system_headers = true;  ///< -MD lists system headers, -MMD does not
  bool phony_targets = false;  ///< -MP: an empty rule for each header
};

/// The facts FastCuda takes from nvcc's own arguments. Everything else it
/// learns from the dryrun.
struct NvccInvocation {
  std::optional<std::string> fallback_reason;  ///< set when nvcc must run itself
  DepfileRequest depfile;                      ///< -MT, -MP and -MD vs -MMD
  std::string compiler_bindir;                 ///< the last -ccbin's value, "" without one
};

/// nvcc's arguments as nvcc sees them: NVCC_PREPEND_FLAGS, the command line
/// with response files (`@FILE`, `-optf FILE`) expanded, NVCC_APPEND_FLAGS.
std::vector<std::string> EffectiveNvccArgs(const std::vector<std::string>& args,
                                           const std::string& prepend_flags, const std::string& append_flags,
                                           const std::string& cwd, const FileSystem& fs);

/// The response files `args` names, absolute: inputs of the dryrun as much
/// as the arguments are.
std::vector<std::string> ResponseFiles(const std::vector<std::string>& args, const std::string& cwd);

/// EffectiveNvccArgs with the NVCC_PREPEND_FLAGS and NVCC_APPEND_FLAGS of
/// `environment`.
std::vector<std::string> EffectiveNvccArgsIn(const std::vector<std::string>& args,
                                             const std::map<std::string, std::string>& environment,
                                             const std::string& cwd, const FileSystem& fs);

/// Reads the mode and depfile options from effective arguments.
NvccInvocation ScanNvccArgs(const std::vector<std::string>& effective_args);

/// The files nvcc reads as its inputs: the words of `effective_args` that
/// are neither options nor their values (sources, objects, libraries).
std::vector<std::string> NvccInputWords(const std::vector<std::string>& effective_args);

/// How nvcc, run whole with `effective_args`, can name the headers it read.
struct WholeNvccDepfile {
  /// kAsked: in a depfile FastCuda asks for (-MD -MF); kUsers: in the
  /// user's own (-MD or -MMD with -MF `users`); kNone: not at all, where
  /// it preprocesses only, reads standard input, links or runs, writes a
  /// depfile it names itself, or compiles several files (each one's depfile
  /// replaces the last's).
  enum class Source { kNone, kAsked, kUsers } source = Source::kNone;
  std::string users;
};
WholeNvccDepfile WholeNvccDepfileOf(const std::vector<std::string>& effective_args);

/// The depfile nvcc writes for `command` (nvcc and its arguments), whose
/// object is `output`: -MF's, else with -MD or -MMD the object's name with
/// `.d`; nullopt when it writes none.
std::optional<std::string> RequestedDepfile(const std::vector<std::string>& command,
                                            const std::string& output);

/// nvcc arguments without the options that ask for a depfile (-MD, -MMD,
/// -MT, -MF and their long forms): CMake adds them to the command it runs
/// but leaves them out of compile_commands.json.
std::vector<std::string> WithoutDepfileOptions(const std::vector<std::string>& args);

/// The file nvcc writes for `source` when no -o names one: the source's stem
/// with the mode's extension (kern.o for -c), a_dlink.o for -dlink, a.out for
/// a link, in -odir if given, else in the working directory. Empty for
/// standard input (`-`), whose output nvcc names after a temporary file.
std::string DefaultNvccOutput(const std::vector<std::string>& args, const std::string& source);

}  // namespace fastcuda

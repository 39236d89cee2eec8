// The text nvcc prints with --dryrun, read into variables and commands.
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "src/base/shell_words.h"

namespace fastcuda {

/// One `#$` line of a dryrun that runs something (or pretends to).
struct TranscriptCommand {
  enum class Kind {
    kRun,                 ///< a program with arguments
    kFilterDependencies,  ///< `-- Filter Dependencies -- > FILE`: nvcc writes a depfile
  };
  Kind kind = Kind::kRun;
  std::vector<std::string> argv;          ///< kRun: words, variables expanded
  std::vector<Redirection> redirections;  ///< kRun: `> FILE`, `2> FILE`
  std::string depfile;                    ///< kFilterDependencies: the depfile nvcc writes
};

/// A whole dryrun: the environment nvcc sets up for its sub-steps, the
/// commands in the order nvcc runs them, and any other text it printed
/// (warnings), which a drop-in replacement must print too.
struct Transcript {
  std::map<std::string, std::string> variables;  ///< `#$ NAME=value`, last one wins
  std::vector<TranscriptCommand> commands;
  std::string other_output;
};

/// Reads a dryrun transcript. `ambient` resolves variables that the
/// transcript itself does not set (nvcc's own environment). Throws
/// ShellSyntaxError on a line that is not well-formed.
Transcript ParseTranscript(std::string_view text, const VariableLookup& ambient);

/// The dryrun `text` of an nvcc run with the PATH `ambient_path`, its
/// sub-steps' PATH (nvcc's directories before `ambient_path`) made to go on
/// with the PATH they inherit (InheritingPath): the transcript, its cache
/// entry and the steps' environment stay the same when PATH's text changes,
/// the programs found on it being keyed instead.
std::string WithInheritedPath(std::string_view text, const std::string& ambient_path);

}  // namespace fastcuda

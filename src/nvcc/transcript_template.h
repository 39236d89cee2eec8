// Reusing one TU's dryrun for another TU compiled with the same flags.
#pragma once

#include <string>

#include "src/nvcc/transcript.h"

namespace fastcuda {

/// The names in an nvcc call that differ between TUs of one command shape.
struct TuNames {
  std::string source;           ///< the source word as it appears in the arguments
  std::string absolute_source;  ///< the source's absolute path (cudafe++ and cicc print it)
  std::string output;           ///< the -o word
};

/// True if `word` is `name` or a file named after it with a suffix
/// (`obj/a.o.d` after `obj/a.o`): the words a TU's output names.
bool NamedAfter(const std::string& word, const std::string& name);

/// The dryrun `representative`'s commands with `from`'s names replaced by
/// `to`'s: whole words equal to the source or output, and the source's stem
/// inside nvcc's temporary names. Only exact when the shape has been
/// verified with VerifyTemplate.
Transcript InstantiateTranscript(const Transcript& representative, const TuNames& from, const TuNames& to);

/// True if two transcripts run the same commands, apart from the directory
/// and nvcc's process id in temporary names.
bool SameCommands(const Transcript& a, const Transcript& b);

}  // namespace fastcuda

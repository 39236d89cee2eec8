// The files a sub-step's program reads that no word of its command names as
// it is: nvcc hands `-Xcompiler @FILE` to the host compiler unread, runs a
// `-ccbin` script as the host compiler, and has nvlink find the libraries
// that `-l` names in the `-L` directories; and host code's assembly may
// include a file (`.incbin`). Where only the preprocessed sources are
// compared (restat), an edit of one of these would leave the steps after
// preprocessing skipped and the object stale.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "src/base/file_system.h"
#include "src/nvcc/step.h"

namespace fastcuda {

/// The existing files that `step`, run in `cwd`, reads besides those its
/// words name: its response files (ResponseFilesWithin), its program where the host compiler
/// is a file named by a path (a `-ccbin` script), and for nvlink the
/// libraries it links (LinkedLibraries).
std::vector<std::string> IndirectInputs(const Step& step, const std::string& cwd, const FileSystem& fs);

/// The response files that `argv` names and that exist, and those their
/// words name in turn (gcc expands them too), each once; absolute.
std::vector<std::string> ResponseFilesWithin(const std::vector<std::string>& argv, const std::string& cwd,
                                             const FileSystem& fs);

/// The libraries nvlink's `argv` links: for each `-lNAME` (or
/// `--library=NAME,...`), the first `DIR/libNAME.a` that exists of the
/// `-LDIR` directories (`--library-path=DIR,...`), in their order on the
/// command line, which holds nvcc's own library directories too; as
/// `DIR/libNAME.a`, DIR as written (relative to `cwd`).
std::vector<std::string> LinkedLibraries(const std::vector<std::string>& argv, const std::string& cwd,
                                         const FileSystem& fs);

/// True where preprocessed host code holds an assembler directive that
/// reads a file (`.incbin`, `.include`, in any case; in a string or not):
/// the assembler reads that file whenever the code is compiled, and no
/// depfile names it, nor can FastCuda (its name may be a macro's).
bool AssemblesOtherFiles(std::string_view preprocessed);

}  // namespace fastcuda

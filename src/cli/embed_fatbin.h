// Runs FASTCUDA_EARLY_HOST's two steps at the end of a TU's device chain:
// fatbinary writing the fatbin's bytes, and their embedding into the host
// object that was compiled without them (see fatbin_embedding.h); and the
// stitch of a split fatbinary (fatbin_split.h), which writes either.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "src/base/file_system.h"
#include "src/base/process.h"
#include "src/graph/fatbin_embedding.h"

namespace fastcuda {

/// Runs `fatbinary` (nvcc's command, run in its cwd) so that it writes the
/// binary fatbin to `bytes_path` and, if LayoutProbeCommand shows the
/// `layout` the placeholder expects, only that layout to its `.fatbin.c`;
/// otherwise nvcc's full `.fatbin.c` as well, for EmbedFatbin to compile.
/// Runs its programs through `runner`, reads the `.fatbin.c` through `fs`.
ProcessResult CreateFatbin(const ProcessSpec& fatbinary, const std::string& bytes_path, FatbinLayout layout,
                           CommandRunner& runner, const FileSystem& fs);

/// Writes what `fatbinary` (nvcc's whole command, run in its cwd) writes,
/// from `images`, the fatbins its images were compressed into one by one:
/// their entries joined behind one header (JoinFatbins), in the `.fatbin.c`
/// that fatbinary writes without images (WithFatbinData); with `embedding`
/// (early host), as CreateFatbin writes them. Where the fatbins or that
/// `.fatbin.c` are not as expected, says why in one line and runs the
/// whole command (CreateFatbin) instead: nvcc's bytes either way. Runs its
/// programs through `runner`, reads and writes through `fs`.
ProcessResult StitchFatbin(const ProcessSpec& fatbinary, const std::vector<std::string>& images,
                           const std::optional<FatbinEmbedding>& embedding, CommandRunner& runner,
                           WritableFileSystem& fs);

/// Writes the object `host_compile` (nvcc's host compile command, `-o` the
/// final object, run in its cwd) would have written had the stub included
/// the real `.fatbin.c`: the bytes copied by the host compiler's assembler,
/// linked to the early object with `-r`, `fatbinData` made local by
/// objcopy. If the `.fatbin.c` is not laid out as the placeholder expects
/// (another CUDA version), says so in one line and runs `host_compile` with
/// it (CreateFatbin wrote it in full) instead. Returns the first failing
/// process's result, or the last's. Runs its programs through `runner`,
/// reads and writes through `fs`.
ProcessResult EmbedFatbin(const ProcessSpec& host_compile, const FatbinEmbedding& embedding,
                          CommandRunner& runner, WritableFileSystem& fs);

}  // namespace fastcuda

// Runs FASTCUDA_EARLY_HOST's last step of a TU: the fatbin into the host
// object that was compiled without it (see fatbin_embedding.h).
#pragma once

#include <string>

#include "src/fatbin_embedding.h"
#include "src/process.h"

namespace fastcuda {

/// The files of one embedding.
struct FatbinEmbedding {
  std::string early_object;  ///< the host compile's object, the placeholder's reference unbound
  std::string fatbin_c;      ///< what fatbinary wrote
  FatbinLayout layout = FatbinLayout::kWhole;  ///< the placeholder the early object was compiled with
};

/// Writes the object `host_compile` (nvcc's host compile command, `-o` the
/// final object, run in its cwd) would have written had the stub included
/// the real `.fatbin.c`: the bytes read out of it and copied by the host
/// compiler's assembler, linked to the early object with `-r`, `fatbinData`
/// made local by objcopy. If the `.fatbin.c` is not laid out as the
/// placeholder expects (another CUDA version), says so in one line and runs
/// `host_compile` with the real one instead. Returns the first failing
/// process's result, or the last's.
ProcessResult EmbedFatbin(const ProcessSpec& host_compile, const FatbinEmbedding& embedding);

}  // namespace fastcuda

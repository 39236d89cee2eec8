// libFuzzer target: any text as fatbinary's `.fatbin.c` (FASTCUDA_EARLY_HOST
// takes it apart and writes an assembly around the bytes), and as the `asm`
// statement alone. Nothing may crash or leak; an assembly copies the bytes.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "src/graph/fatbin_embedding.h"

namespace {

/// Writes `fatbin`'s assembly; aborts if one does not copy the bytes.
void Assemble(const fastcuda::EmbeddedFatbin& fatbin) {
  std::optional<std::string> assembly = fastcuda::FatbinAssembly(fatbin, "/b/x.fatbin");
  if (assembly && assembly->find(".incbin \"/b/x.fatbin\"\n") == std::string::npos) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  if (std::optional<fastcuda::EmbeddedFatbin> fatbin = fastcuda::SplitEmbeddedFatbin(text)) Assemble(*fatbin);
  Assemble(fastcuda::EmbeddedFatbin{std::string(text), ""});
  return 0;
}

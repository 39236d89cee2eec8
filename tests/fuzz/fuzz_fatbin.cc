// libFuzzer target: any text as fatbinary's `.fatbin.c` (FASTCUDA_EARLY_HOST
// takes it apart and reads its bytes), and as the `asm` statement alone.
// Nothing may crash or leak; what is read holds whole 8-byte values.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "src/fatbin_embedding.h"

namespace {

/// Reads `fatbin`'s bytes; aborts if the result breaks its invariants.
void Assemble(const fastcuda::EmbeddedFatbin& fatbin) {
  std::optional<fastcuda::FatbinData> data = fastcuda::AssembleFatbinData(fatbin, "/b/x.bin");
  if (data && (data->bytes.empty() || data->bytes.size() % 8 != 0 ||
               data->assembly.find(".incbin \"/b/x.bin\"\n") == std::string::npos)) {
    std::abort();
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  if (std::optional<fastcuda::EmbeddedFatbin> fatbin = fastcuda::SplitEmbeddedFatbin(text)) Assemble(*fatbin);
  Assemble(fastcuda::EmbeddedFatbin{std::string(text), ""});
  return 0;
}

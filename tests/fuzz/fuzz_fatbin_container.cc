// libFuzzer target: any bytes as a fatbin (the split fatbinary's stitch
// reads the fatbins of one image each), alone and joined with themselves.
// Nothing may crash, leak or read past the bytes; a fatbin that reads is
// its entries exactly, and writes back as the same bytes.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "src/nvcc/fatbin_container.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string bytes(reinterpret_cast<const char*>(data), size);
  try {
    fastcuda::Fatbin fatbin = fastcuda::ReadFatbin(bytes);
    if (fastcuda::WriteFatbin(fatbin.version, fatbin.entries) != bytes) std::abort();
    std::string joined = fastcuda::JoinFatbins({bytes, bytes});
    if (fastcuda::ReadFatbin(joined).entries.size() != 2 * fatbin.entries.size()) std::abort();
  } catch (const fastcuda::FatbinError&) {
  }
  return 0;
}

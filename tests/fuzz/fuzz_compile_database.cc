// libFuzzer target: any text as compile_commands.json. Only
// CompileDatabaseError may come out; nothing may crash or leak.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "src/nvcc/compile_database.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  try {
    fastcuda::ParseCompileDatabase(text, "fuzz.json", "/base");
  } catch (const fastcuda::CompileDatabaseError&) {
  }
  return 0;
}

// JSON text that carries arbitrary bytes. Paths, commands and environment
// values on Linux are bytes, not UTF-8, and CMake writes them raw into
// compile_commands.json; nlohmann::json rejects such bytes when parsing and
// when dumping. These functions read and write such text byte-exactly.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

namespace fastcuda {

/// Parses JSON text whose strings may hold any bytes (not only UTF-8); every
/// string and object key of the result holds the bytes of the text. Throws
/// nlohmann::json::exception for text that is not JSON.
nlohmann::json ParseJsonBytes(std::string_view text);

/// Dumps `value` (as nlohmann's dump with `indent`) with the bytes of its
/// strings and keys written raw, as ParseJsonBytes and CMake's database do.
std::string DumpJsonBytes(const nlohmann::json& value, int indent = -1);

}  // namespace fastcuda

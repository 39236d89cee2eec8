// FASTCUDA_EARLY_HOST: the host compile of a TU no longer waits for its
// device code. nvcc's host stub includes the `.fatbin.c` that fatbinary
// writes last: an `asm` block holding the fatbin's bytes under the label
// `fatbinData`, and C that registers them. FastCuda has the stub include a
// placeholder instead (the same C, the bytes left to an extern array), so
// the host compile runs beside cicc and ptxas; afterwards the bytes are
// assembled into a small object and linked into the host object
// (`ld -r`), `fatbinData` made local again, as nvcc's object has it.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace fastcuda {

/// What kind of object the fatbin goes into: a whole program's
/// (`.nv_fatbin`) or a relocatable device code one (`__nv_relfatbin`,
/// fatbinary --device-c).
enum class FatbinLayout { kWhole, kRelocatable };

/// The name the layout has on `fastcuda write-fatbin-placeholder`'s command line.
std::string_view FatbinLayoutName(FatbinLayout layout);

/// Reads FatbinLayoutName's output; nullopt for anything else.
std::optional<FatbinLayout> ParseFatbinLayout(std::string_view name);

/// A `.fatbin.c` taken apart.
struct EmbeddedFatbin {
  std::string data_asm;  ///< the `asm(...);` statement that holds the bytes
  std::string c_part;    ///< the rest, with the array's size left out
};

/// Splits fatbinary's `--embedded-fatbin` output; nullopt if it does not
/// hold exactly one `asm` statement defining `fatbinData`.
std::optional<EmbeddedFatbin> SplitEmbeddedFatbin(std::string_view text);

/// The C part CUDA 13's fatbinary writes for `layout`, as
/// SplitEmbeddedFatbin returns it.
std::string ExpectedFatbinCPart(FatbinLayout layout);

/// The macro that makes the placeholder include the real `.fatbin.c`
/// instead (when its C part is not the expected one, the host code is
/// compiled again with it).
inline constexpr std::string_view kRealFatbinMacro = "FASTCUDA_REAL_FATBIN_C";

/// The placeholder the host stub includes: ExpectedFatbinCPart, or the file
/// kRealFatbinMacro names.
std::string FatbinPlaceholder(FatbinLayout layout);

/// The bytes of a fatbin, and an assembler source that puts them under a
/// global `fatbinData` (global so that `ld -r` binds the placeholder's
/// reference to it) in the `.fatbin.c`'s section.
struct FatbinData {
  std::string bytes;
  std::string assembly;  ///< `.incbin`s the bytes from the path it was given
};

/// Reads the `.quad` values of `fatbin` into little-endian bytes (CUDA 13's
/// hosts are little-endian) and writes the assembly around them: the
/// assembler copies a binary file in milliseconds, where compiling the
/// `asm` statement parses megabytes of text on each TU's critical path.
/// nullopt for any other shape of statement.
std::optional<FatbinData> AssembleFatbinData(const EmbeddedFatbin& fatbin, std::string_view bytes_path);

/// The label nvcc's `.fatbin.c` gives the bytes.
inline constexpr std::string_view kFatbinDataSymbol = "fatbinData";

}  // namespace fastcuda

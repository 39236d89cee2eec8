// FASTCUDA_EARLY_HOST: the host compile of a TU no longer waits for its
// device code. nvcc's host stub includes the `.fatbin.c` that fatbinary
// writes last: an `asm` block holding the fatbin's bytes under the label
// `fatbinData`, and C that registers them. FastCuda has the stub include a
// placeholder instead (the same C, the bytes left to an extern array), so
// the host compile runs beside cicc and ptxas. fatbinary writes the
// fatbin's bytes as a binary file and, to show its layout, the `.fatbin.c`
// of an empty fatbin (the full one only when that layout is not the one the
// placeholder expects); afterwards the bytes are assembled into a small
// object and linked into the host object (`ld -r`), `fatbinData` made local
// again, as nvcc's object has it.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

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

/// `fatbin_c` (fatbinary's `--embedded-fatbin` output, e.g. an empty
/// fatbin's) holding the fatbin `bytes` instead, written as fatbinary writes
/// them: the same text fatbinary writes for those bytes. nullopt where
/// SplitEmbeddedFatbin fails or `bytes` are not 8-byte units.
std::optional<std::string> WithFatbinData(std::string_view fatbin_c, std::string_view bytes);

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

/// The assembler source that puts the binary fatbin at `bytes_path` under
/// a global `fatbinData` (global so that `ld -r` binds the placeholder's
/// reference to it), with the directives of `fatbin`'s `asm` statement
/// around it: `.incbin` where its `.quad` lines are. The assembler copies a
/// binary file in milliseconds, where compiling the `asm` statement parses
/// megabytes of text on each TU's critical path. nullopt for any other
/// shape of statement.
std::optional<std::string> FatbinAssembly(const EmbeddedFatbin& fatbin, std::string_view bytes_path);

/// FatbinAssembly of a `.fatbin.c` whose C part is ExpectedFatbinCPart(layout);
/// nullopt for any other `.fatbin.c`.
std::optional<std::string> EmbeddingAssembly(std::string_view fatbin_c, FatbinLayout layout,
                                             std::string_view bytes_path);

/// How fatbinary's command names the `.fatbin.c` it writes.
inline constexpr std::string_view kEmbeddedFatbinFlag = "--embedded-fatbin=";

/// fatbinary's command without its images: it writes the `.fatbin.c` of an
/// empty fatbin, the same C around it, in milliseconds.
std::vector<std::string> LayoutProbeCommand(const std::vector<std::string>& fatbinary);

/// fatbinary's command writing the binary fatbin to `bytes_path`
/// (`--create`) instead of the `.fatbin.c`: the text of a 7.6 MB fatbin
/// took it 70 of its 90 ms. Throws unless the command has one
/// kEmbeddedFatbinFlag word.
std::vector<std::string> BinaryFatbinCommand(const std::vector<std::string>& fatbinary,
                                             std::string_view bytes_path);

/// The files of one TU's embedding, as the graph's steps name them.
struct FatbinEmbedding {
  std::string early_object;  ///< the host compile's object, the placeholder's reference unbound
  std::string fatbin_c;      ///< fatbinary's `.fatbin.c`: the layout, or the whole fatbin
  std::string fatbin_bytes;  ///< fatbinary's binary fatbin
  FatbinLayout layout = FatbinLayout::kWhole;  ///< the placeholder the early object was compiled with
};

/// The label nvcc's `.fatbin.c` gives the bytes.
inline constexpr std::string_view kFatbinDataSymbol = "fatbinData";

}  // namespace fastcuda

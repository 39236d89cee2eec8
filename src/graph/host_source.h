// FASTCUDA_EARLY_HOST: a device-only edit need not recompile the host code.
// cudafe++ writes the `.cudafe1.cpp` the host compile reads with every
// device function's body kept between `#if 0` and `#endif`, so any device
// edit changes the file although the host compiler skips those lines. With
// them blanked the file comes out unchanged, and Ninja (restat) skips the
// host compile; the fatbin reaches the object through EMBED_FATBIN.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace fastcuda {

/// `cudafe_output` with every line inside an `#if 0` block made empty (the
/// directives themselves and the line count stay, so line numbers, and with
/// them the object, do not change). Nullopt when the text holds a raw string
/// literal, the one place in preprocessed C++ where a line reading `#if 0`
/// need not be a directive, or an `#if 0` block with an `#else` or `#elif`
/// of its own: the caller then leaves the file as it is.
std::optional<std::string> BlankDisabledCode(std::string_view cudafe_output);

/// A cudafe++ run through a cache (sccache): the host source it writes and
/// the name that source must include the host stub by (cudafe++'s
/// `--stub_file_name`, the file cicc writes beside it).
struct StubInclude {
  std::string host_source;
  std::string stub_name;
};

/// `cudafe_output` including its host stub as `stub_name`. sccache keys
/// cudafe++ without `--stub_file_name`, so a hit hands back the name that
/// the storing run gave (`x_0.cudafe1.stub.c` from `sccache nvcc`), which
/// names no file here. Nullopt where the text includes it as `stub_name`
/// already, or includes nothing: the caller then leaves the file as it is.
std::optional<std::string> RestoreStubName(std::string_view cudafe_output, std::string_view stub_name);

}  // namespace fastcuda

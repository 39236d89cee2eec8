// The fatbin container that fatbinary writes (`--create`) and nvcc embeds
// in the object: a 16-byte header (magic 0xBA55ED50, version, header size,
// size of what follows), then one entry per image (PTX, SASS, LTO-IR),
// each compressed on its own and led by a header of its own that gives its
// size. So fatbinary run once per image writes the entries that one run on
// all the images writes, and joining them behind one header gives that
// run's bytes exactly: FastCuda's split fatbinary relies on it, for the
// command shapes its integration test proves against nvcc.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace fastcuda {

/// Thrown for bytes that are no fatbin, saying what is wrong and where.
struct FatbinError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

/// The magic number that opens a fatbin (little-endian, as all its fields).
inline constexpr uint32_t kFatbinMagic = 0xBA55ED50;

/// The size of the container's header, the only one CUDA writes.
inline constexpr uint16_t kFatbinHeaderSize = 16;

/// A fatbin taken apart: its header's version and its entries, each whole
/// (the entry's header and its payload), in order.
struct Fatbin {
  uint16_t version = 0;
  std::vector<std::string_view> entries;  ///< views into the bytes read
};

/// Reads `bytes` as one fatbin: the header, and entries that fill what
/// follows it exactly. Throws FatbinError for anything else (truncated,
/// another magic, a size that overruns), never reading past the bytes.
Fatbin ReadFatbin(std::string_view bytes);

/// Writes a fatbin of `version` holding `entries` in order.
std::string WriteFatbin(uint16_t version, const std::vector<std::string_view>& entries);

/// The fatbin holding the entries of every fatbin of `parts`, in order: what
/// fatbinary writes for all their images at once. Throws FatbinError where a
/// part is no fatbin, or parts differ in version.
std::string JoinFatbins(const std::vector<std::string>& parts);

}  // namespace fastcuda

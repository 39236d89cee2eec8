// The typed sub-steps of an nvcc compilation.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "src/nvcc/transcript.h"

namespace fastcuda {

/// What a sub-command of nvcc does, decided by its program and file suffixes.
enum class StepKind {
  kHostPreprocess,      ///< host compiler -E writing the host `.cpp4.ii`
  kDevicePreprocess,    ///< host compiler -E writing a per-arch `.cpp1.ii`
  kCudafe,              ///< cudafe++: splits host code, writes `.cudafe1.cpp`
  kCicc,                ///< cicc: device code to `.ptx` (and the host stub)
  kPtxas,               ///< ptxas: `.ptx` to `.cubin`
  kFatbinary,           ///< fatbinary: images to the embedded `.fatbin.c` (or one image to its fatbin)
  kFatbinStitch,        ///< FastCuda joining one-image fatbins into fatbinary's output (fatbin_split.h)
  kNvlink,              ///< nvlink: device link
  kHostCompile,         ///< host compiler -c: the object file
  kHostLink,            ///< host compiler linking an executable or library
  kRemove,              ///< `rm` of a temporary
  kFilterDependencies,  ///< nvcc writing the depfile it was asked for
  kModuleId,            ///< FastCuda writing the module id (FASTCUDA_MODULE_ID=own)
  kFatbinPlaceholder,   ///< FastCuda writing the `.fatbin.c` stand-in (FASTCUDA_EARLY_HOST=on)
  kEmbedFatbin,         ///< FastCuda linking the fatbin into the early host object (same)
  kCacheLookup,         ///< the whole nvcc call looked up in its cache (ccache), before the others
  kUnknown,             ///< anything else: run as it is
};

/// Every kind a step of a graph can have: all but kRemove, as the graph drops
/// `rm` steps (nvcc's temporaries are kept for the next build).
inline constexpr StepKind kAllKinds[] = {StepKind::kHostPreprocess,
                                         StepKind::kDevicePreprocess,
                                         StepKind::kCudafe,
                                         StepKind::kCicc,
                                         StepKind::kPtxas,
                                         StepKind::kFatbinary,
                                         StepKind::kFatbinStitch,
                                         StepKind::kNvlink,
                                         StepKind::kHostCompile,
                                         StepKind::kHostLink,
                                         StepKind::kFilterDependencies,
                                         StepKind::kModuleId,
                                         StepKind::kFatbinPlaceholder,
                                         StepKind::kEmbedFatbin,
                                         StepKind::kCacheLookup,
                                         StepKind::kUnknown};

/// The short upper-case name used in Ninja rule names and descriptions.
std::string_view StepKindName(StepKind kind);
/// The kind whose StepKindName is `name`, if any.
std::optional<StepKind> StepKindNamed(std::string_view name);

/// True for the host compiler's -E steps, which report header dependencies.
bool IsPreprocess(StepKind kind);

/// True for the steps that read the sources and headers themselves (the -E
/// steps, the whole-call cache's lookup): Ninja keeps their depfiles' headers.
bool ReadsSources(StepKind kind);

/// True for the steps whose work `fastcuda` does itself rather than wrap a
/// program (through `fastcuda step`).
bool RunByFastcuda(StepKind kind);

/// One sub-command of nvcc with what it is known to write.
struct Step {
  StepKind kind = StepKind::kUnknown;
  std::string arch;                       ///< target of device steps ("compute_90", "sm_90")
  std::vector<std::string> argv;          ///< the command (empty for the steps FastCuda runs itself)
  std::vector<Redirection> redirections;  ///< as nvcc printed them
  std::vector<std::string> outputs;       ///< files it writes
};

/// Types a transcript command and finds the files it writes from the flags
/// that name outputs (by flag name, never by position).
Step ClassifyCommand(const TranscriptCommand& command);

/// The values of every occurrence of `names` in argv, in the forms
/// `NAME VALUE` and `NAME=VALUE`.
std::vector<std::string> FlagValues(const std::vector<std::string>& argv,
                                    std::initializer_list<std::string_view> names);

/// True if argv contains `flag` as a word of its own.
bool HasFlag(const std::vector<std::string>& argv, std::string_view flag);

}  // namespace fastcuda

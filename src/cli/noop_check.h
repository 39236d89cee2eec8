// A build with nothing to do, told by plain Ninja on the generator's own
// manifest: `fastcuda ninja`'s rewrite names eight steps and fifteen files a
// TU for its Ninja to read and stat, where the generator's manifest names one
// edge and a few files. Where every object's record in Ninja's deps log names
// what its steps read (NinjaSeesEveryRead), a step that would rerun makes
// the generator's edge of its object dirty too; so a dry run of the
// generator's manifest that finds nothing to do, with the rewrite up to date
// and no source changed since a step read it (SourceChangedSinceRead), is
// the answer the rewrite's Ninja would give, at about plain ninja's cost.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ninja-gen/manifest.h"
#include "src/base/command_io.h"
#include "src/base/process.h"
#include "src/cli/ninja_rewrite.h"

namespace fastcuda {

/// How the generator's manifest is made again, which plain Ninja checks
/// before each build.
enum class ManifestRegeneration {
  kNone,     ///< no edge writes it
  kChecked,  ///< an edge writes it, which the dry run asks about
  kAlways,   ///< an edge that runs in every build leads to it (CMake's glob check): run for real first
};

/// What the no-op check reads (NoopCheckPath) besides the probe manifest.
struct NoopCheck {
  ManifestRegeneration regeneration = ManifestRegeneration::kNone;
  /// The files the rewrite's copy was made from (absolute): one newer than
  /// the copy means a rewrite, which the rewrite's Ninja would run.
  std::vector<std::string> copy_inputs;
};

std::string FormatNoopCheck(const NoopCheck& check);
std::optional<NoopCheck> ParseNoopCheck(std::string_view text);

/// The no-op check of `manifest` (the generator's, at `arguments`), whose
/// copy the rewrite also makes from `other_inputs`; `fs` says which files
/// its regeneration finds.
NoopCheck NoopCheckOf(const Manifest& manifest, const NinjaArguments& arguments,
                      const std::vector<std::string>& other_inputs, const WritableFileSystem& fs);

/// The target that stands for the manifest's defaults in the probe.
inline constexpr const char* kNoopDefaultsTarget = "fastcuda_noop_defaults";
/// The probe manifest's name in the rewrite's directory (InRewriteDir).
inline constexpr const char* kNoopProbeName = "noop.ninja";
/// The regeneration probe's name there, and its target that builds nothing.
inline constexpr const char* kNoopRegenerationName = "noop-regeneration.ninja";
inline constexpr const char* kNoopNothingTarget = "fastcuda_noop_nothing";

/// The probe manifest (kNoopProbeName): the generator's manifest included as
/// it is, so that Ninja reads its own log and deps log for it, with the
/// target kNoopDefaultsTarget for its defaults. No edge writes the probe, so
/// a dry run of it asks about the targets alone.
std::string NoopProbeText(const Manifest& manifest, const NinjaArguments& arguments);

/// The regeneration probe (kNoopRegenerationName), where the regeneration
/// is kAlways: the edges that make the generator's manifest again, alone,
/// with a log of their own (so that Ninja reads neither the manifest's logs
/// nor its other edges), made again where Ninja finds the manifest out of
/// date (the probe waits for it), and kNoopNothingTarget. None where one of
/// those edges has a depfile, a dyndep or a response file.
std::optional<std::string> NoopRegenerationText(const Manifest& manifest, const NinjaArguments& arguments);

/// Where the rewrite in `out_dir` is up to date (the caller checked its
/// key), asks plain Ninja (`ninja`: its program, environment and lock)
/// whether the build `arguments` ask for has nothing to do. If so, prints
/// what Ninja said and returns 0; the status of a regeneration that failed
/// (kAlways, run first as plain Ninja would), with what it printed; none
/// where it cannot tell or there is something to do (nothing printed).
std::optional<int> PlainNinjaFindsNothingToDo(const NinjaArguments& arguments, const std::string& out_dir,
                                              const ProcessSpec& ninja, const CommandIo& io);

}  // namespace fastcuda

// FASTCUDA_EARLY_HOST=on: a TU's host compile goes first, on a placeholder
// for the fatbin, and its object gets the fatbin afterwards (EMBED_FATBIN).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "src/graph/fatbin_embedding.h"
#include "src/graph/step_graph.h"

namespace fastcuda {

/// The early host compile of one transcript: the fatbin.c the host stub
/// includes, and the names of the files that stand in for it.
class EarlyHost {
 public:
  /// The plan for `steps` (renamed into the work dir), or nullopt where the
  /// host compile cannot go first: no single fatbinary and host compile,
  /// host flags that name files after the object, or a fatbin.c no stub
  /// includes (the device link's).
  static std::optional<EarlyHost> Plan(const std::vector<Step>& steps);

  /// What fatbinary writes, which the host compile no longer waits for.
  const std::string& real_fatbin_c() const { return real_fatbin_c_; }

  /// The step that writes the placeholder the stub includes meanwhile.
  GraphStep PlaceholderStep() const;

  /// What `step` becomes: cudafe++ and cicc name the placeholder for the
  /// stub to include (and cudafe++'s host source is blanked of device
  /// code, so a device edit need not rerun the host compile), fatbinary
  /// also writes the binary fatbin, and the host compile becomes the early
  /// compile followed by EMBED_FATBIN. The first step returned is the one a
  /// launcher runs.
  std::vector<GraphStep> Rewrite(GraphStep step) const;

 private:
  EarlyHost() = default;
  void RenameStubInclude(std::vector<std::string>& argv) const;

  std::string real_fatbin_c_;
  std::string fatbin_bytes_;  ///< the binary fatbin fatbinary writes too
  std::string early_stem_;    ///< the placeholder's and early object's path less suffix
  FatbinLayout layout_ = FatbinLayout::kWhole;
};

/// True if `name`, as cudafe++'s and cicc's `--include_file_name`, names
/// `path`: nvcc gives the file's name alone (or, in -keep mode, in full).
bool NamesFile(const std::string& name, const std::string& path);

}  // namespace fastcuda

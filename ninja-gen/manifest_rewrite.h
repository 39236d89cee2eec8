// A generator's manifest with some of its build statements cut out, every
// other byte as the generator wrote it (`fastcuda ninja`).
#pragma once

#include <map>
#include <set>
#include <string>

#include "ninja-gen/manifest.h"

namespace fastcuda {

/// What to cut and where the rewritten files go.
struct ManifestCut {
  std::set<size_t> edges;  ///< indexes into Manifest::edges
  std::string top;         ///< the top file's copy, as Ninja (in its directory) names it
  std::string copies_dir;  ///< other rewritten files go here, as Ninja names it
  std::string appended;    ///< text added at the end of the top file's copy
  /// Indexes into Manifest::defaults of statements to cut: they name a cut
  /// edge's output, which only the appended text defines again, so the
  /// caller names their targets there.
  std::set<size_t> defaults;
};

/// The rewritten files by the path Ninja names them with: the top file's
/// copy, and a copy of every file that holds a cut statement or includes
/// (through `include` or `subninja`, at any depth) a file that is copied,
/// whose `include`/`subninja` lines then name the copies. Files that need no
/// change are not copied: the copies name the originals.
std::map<std::string, std::string> CutManifest(const Manifest& manifest, const ManifestCut& cut);

}  // namespace fastcuda

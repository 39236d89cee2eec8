// A preprocess step's depfile, kept between builds for the user's depfile
// and the launcher: where the file system keeps extended attributes, its
// headers go to a list that every step with the same headers shares, and
// the kept file is empty, naming that list in an attribute (in the inode:
// no disk block, where a TU's header list took one per preprocess step).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "src/base/depfile.h"
#include "src/base/file_system.h"

namespace fastcuda {

/// The extended attribute of a kept depfile whose headers are shared: the
/// name of their list (a content hash) in SharedHeadersDir.
inline constexpr std::string_view kSharedHeadersAttribute = "user.fastcuda.headers";

/// Where the shared header lists of the kept depfile at `path` are: beside
/// its work dir, so that the TUs of one graph share them.
std::string SharedHeadersDir(const std::string& path);

/// Keeps `written` (a preprocess step's depfile) at `path`: where its first
/// dependency is `source` (as gcc writes the source it was given) and the
/// file system keeps attributes, its headers in a shared list, else whole,
/// in the compact layout. No dependencies: an empty file. `only_if_changed`:
/// an equal one keeps its mtime.
void KeepDepfile(WritableFileSystem& fs, const std::string& path, const Depfile& written,
                 const std::string& source, bool only_if_changed);

/// The dependencies the kept depfile at `path` holds: a shared one's are
/// `source` (the preprocessed source as the step's command names it) and
/// its headers. nullopt where the file, or its shared list, is gone.
std::optional<std::vector<std::string>> KeptDependencies(const WritableFileSystem& fs,
                                                         const std::string& path, const std::string& source);

/// The header lists in the SharedHeadersDir of `kept_depfiles` (absolute,
/// every kept depfile of a graph) that none of them names: their steps'
/// headers have changed since, or their TUs have gone.
std::vector<std::string> UnnamedHeaderLists(const WritableFileSystem& fs,
                                            const std::vector<std::string>& kept_depfiles);

/// UnionOfDependencies of the depfiles at `paths` (relative to `cwd`), gcc's,
/// compact or kept ones of `source`; a missing file adds none.
std::vector<std::string> DependenciesOfDepfiles(const std::vector<std::string>& paths, const std::string& cwd,
                                                const WritableFileSystem& fs, const std::string& source = "");

}  // namespace fastcuda

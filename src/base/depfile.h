// Makefile-style dependency files, as gcc writes them and Ninja and CMake read them.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace fastcuda {

/// The targets and prerequisites of one depfile rule.
struct Depfile {
  std::vector<std::string> targets;
  std::vector<std::string> dependencies;
};

/// Reads gcc's depfile syntax (escaped spaces, `$$`, line continuations, and
/// the empty phony rules of -MP, which are skipped), or FormatCompactDepfile's.
Depfile ParseDepfile(std::string_view text);

/// Writes a depfile in nvcc's layout: `TARGET : DEP \` then one dependency a line.
/// With `phony_targets` (-MP), an empty rule follows for every dependency but
/// the first (the source), so that a deleted header does not stop make.
std::string FormatDepfile(const Depfile& depfile, bool phony_targets = false);

/// A depfile kept between builds, in a few KB where gcc's layout takes
/// three times as many (a disk block where it took three, per TU and
/// preprocess step): a header line, a `: TARGET` line per target, then a
/// dependency a line, in order, as `BACK SHARED REST`: the bytes it shares
/// with the dependency BACK lines before (0: none) and the rest. A
/// dependency with a newline, which this layout cannot hold, keeps gcc's
/// layout. ParseDepfile reads both.
std::string FormatCompactDepfile(const Depfile& depfile);

/// The dependencies of all `parts`, each once, in first-seen order.
std::vector<std::string> UnionOfDependencies(const std::vector<Depfile>& parts);

}  // namespace fastcuda

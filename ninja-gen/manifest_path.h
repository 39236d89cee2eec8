// How Ninja names a file: the canonical form of a path on a build line, and
// the form $in and $out give it on a command line.
#pragma once

#include <string>
#include <string_view>

namespace fastcuda {

/// `path` as Ninja 1.12+ (POSIX) canonicalizes a path on a build line: no
/// empty or `.` components, each `..` cancelling the component before it
/// (leading ones kept), no trailing `/`, and `.` for a path that cancels out.
/// Two spellings of one canonical path are one node of the graph.
std::string CanonicalizeManifestPath(std::string_view path);

/// `path` as $in and $out put it into a command (Ninja's POSIX
/// GetShellEscapedString): unchanged if every character is known safe, else
/// in single quotes, each `'` written `'\''`.
std::string ShellEscapeManifestPath(std::string_view path);

}  // namespace fastcuda

#include <doctest/doctest.h>

#include "ninja-gen/manifest_path.h"

using namespace fastcuda;

TEST_CASE("paths canonicalize as Ninja 1.12+'s CanonicalizePath") {
  // Cases from Ninja's util_test.cc (POSIX ones).
  CHECK(CanonicalizeManifestPath("foo.h") == "foo.h");
  CHECK(CanonicalizeManifestPath("./foo.h") == "foo.h");
  CHECK(CanonicalizeManifestPath("./foo/./bar.h") == "foo/bar.h");
  CHECK(CanonicalizeManifestPath("./x/foo/../bar.h") == "x/bar.h");
  CHECK(CanonicalizeManifestPath("./x/foo/../../bar.h") == "bar.h");
  CHECK(CanonicalizeManifestPath("foo//bar") == "foo/bar");
  CHECK(CanonicalizeManifestPath("foo//.//..///bar") == "bar");
  CHECK(CanonicalizeManifestPath("./x/../foo/../../bar.h") == "../bar.h");
  CHECK(CanonicalizeManifestPath("foo/./.") == "foo");
  CHECK(CanonicalizeManifestPath("foo/bar/..") == "foo");
  CHECK(CanonicalizeManifestPath("foo/.hidden_bar") == "foo/.hidden_bar");
  CHECK(CanonicalizeManifestPath("/foo") == "/foo");
  CHECK(CanonicalizeManifestPath("//foo") == "/foo");
  CHECK(CanonicalizeManifestPath("..") == "..");
  CHECK(CanonicalizeManifestPath("../") == "..");
  CHECK(CanonicalizeManifestPath("../foo/../..") == "../..");
  CHECK(CanonicalizeManifestPath("../../foo/bar/..") == "../../foo");
  CHECK(CanonicalizeManifestPath("foo/..") == ".");
  CHECK(CanonicalizeManifestPath(".") == ".");
  CHECK(CanonicalizeManifestPath("./.") == ".");
  CHECK(CanonicalizeManifestPath("/") == "/");
  CHECK(CanonicalizeManifestPath("/..") == "/..");
  CHECK(CanonicalizeManifestPath("/../x/") == "/../x");
  CHECK(CanonicalizeManifestPath("a/../../b/..") == "..");
  CHECK(CanonicalizeManifestPath("...") == "...");
  CHECK(CanonicalizeManifestPath("foo/...") == "foo/...");
}

TEST_CASE("$in and $out quote a path the way Ninja's POSIX GetShellEscapedString does") {
  CHECK(ShellEscapeManifestPath("some/sane/path_+-.o") == "some/sane/path_+-.o");
  CHECK(ShellEscapeManifestPath("a b") == "'a b'");
  CHECK(ShellEscapeManifestPath("it's") == "'it'\\''s'");
  CHECK(ShellEscapeManifestPath("$x") == "'$x'");
  CHECK(ShellEscapeManifestPath("") == "");
}

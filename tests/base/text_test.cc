#include <doctest/doctest.h>

#include "src/base/text.h"

using namespace fastcuda;

TEST_CASE("ReplaceAll replaces every occurrence, left to right") {
  CHECK(ReplaceAll("/w/a.o /w/b.o", "/w/", "") == "a.o b.o");
  CHECK(ReplaceAll("-I/w -o /w/x", "/w", "${w}") == "-I${w} -o ${w}/x");
  CHECK(ReplaceAll("aaa", "aa", "b") == "ba");
  CHECK(ReplaceAll("no match", "x", "y") == "no match");
  CHECK(ReplaceAll("", "x", "y") == "");
}

TEST_CASE("ReplaceAll does not search what it put in") {
  CHECK(ReplaceAll("ab", "a", "aa") == "aab");
  CHECK(ReplaceAll("x", "x", "xx") == "xx");
  // Erasing can join a new occurrence, which is not searched for again.
  CHECK(ReplaceAll("aabb", "ab", "") == "ab");
}

TEST_CASE("ReplaceAll with nothing to find leaves the text") { CHECK(ReplaceAll("abc", "", "x") == "abc"); }

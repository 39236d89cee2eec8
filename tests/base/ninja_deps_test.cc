#include <doctest/doctest.h>

#include <cstring>

#include "src/base/ninja_deps.h"

using namespace fastcuda;

namespace {

/// The inputs of `output` by path; empty where the log has none.
std::vector<std::string> InputsOf(const NinjaDepsLog& log, const std::string& output) {
  std::vector<std::string> inputs;
  for (const auto& [id, ids] : log.inputs_of) {
    if (log.paths[id] != output) continue;
    for (int32_t input : ids) inputs.push_back(log.paths[input]);
  }
  return inputs;
}

}  // namespace

TEST_CASE("deps log: each output's inputs read back, paths of every length past their padding") {
  std::string bytes =
      FormatNinjaDepsLog({{"t/a.ii", {"a.cu", "include/abc.h", "/usr/x.h"}}, {"t/b.ii", {"a.cu"}}});
  NinjaDepsLog log = ParseNinjaDepsLog(bytes);
  CHECK(InputsOf(log, "t/a.ii") == std::vector<std::string>{"a.cu", "include/abc.h", "/usr/x.h"});
  CHECK(InputsOf(log, "t/b.ii") == std::vector<std::string>{"a.cu"});
  CHECK(log.paths.size() == 5);  // a path named twice is recorded once
}

TEST_CASE("deps log: the last record of an output is the one that counts") {
  std::string bytes = FormatNinjaDepsLog({{"o", {"old.h"}}, {"o", {"new.h"}}});
  CHECK(InputsOf(ParseNinjaDepsLog(bytes), "o") == std::vector<std::string>{"new.h"});
}

TEST_CASE("deps log: read up to a record cut short, as Ninja reads it") {
  std::string bytes = FormatNinjaDepsLog({{"o", {"a.h"}}, {"p", {"b.h"}}});
  NinjaDepsLog whole = ParseNinjaDepsLog(bytes);
  for (size_t cut = 1; cut <= 8; ++cut) {
    CAPTURE(cut);
    NinjaDepsLog log = ParseNinjaDepsLog(std::string_view(bytes).substr(0, bytes.size() - cut));
    CHECK(InputsOf(log, "o") == std::vector<std::string>{"a.h"});
    CHECK(InputsOf(log, "p").empty());
  }
  CHECK(InputsOf(whole, "p") == std::vector<std::string>{"b.h"});
}

TEST_CASE("deps log: a path record whose checksum is not its id ends the reading (two Ninjas wrote)") {
  std::string bytes = FormatNinjaDepsLog({{"o", {"a.h"}}});
  // The first path record's checksum: after the header (16 bytes), its size
  // (4) and the padded path "o" (4).
  uint32_t wrong = 12345;
  std::memcpy(bytes.data() + 16 + 4 + 4, &wrong, sizeof wrong);
  CHECK(ParseNinjaDepsLog(bytes).paths.empty());
}

TEST_CASE("deps log: another format or version gives nothing") {
  CHECK(ParseNinjaDepsLog("").paths.empty());
  CHECK(ParseNinjaDepsLog("# ninja log v5\n").paths.empty());
  std::string bytes = FormatNinjaDepsLog({{"o", {"a.h"}}});
  bytes[12] = 3;  // version 3: 32-bit mtimes
  CHECK(ParseNinjaDepsLog(bytes).paths.empty());
}

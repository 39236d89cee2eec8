#include <doctest/doctest.h>

#include <cstdint>

#include "src/base/json_bytes.h"
#include "src/nvcc/compile_database.h"
#include "src/plan/tu_record.h"

using namespace fastcuda;
using nlohmann::json;

namespace {

/// `bytes` dumped as a JSON string and as an object key, then parsed back.
void CheckRoundTrip(const std::string& bytes, bool written_raw = true) {
  CAPTURE(bytes);
  json value = {{bytes, json::array({bytes, 1})}};
  std::string text = DumpJsonBytes(value);
  if (written_raw) CHECK(text.find(bytes) != std::string::npos);  // not replaced or escaped
  json back = ParseJsonBytes(text);
  REQUIRE(back.is_object());
  REQUIRE(back.size() == 1);
  CHECK(back.begin().key() == bytes);
  CHECK(back.begin().value()[0].get<std::string>() == bytes);
  CHECK(DumpJsonBytes(back, 1) == DumpJsonBytes(value, 1));
}

}  // namespace

TEST_CASE("strings and keys with bytes that are not UTF-8 round-trip byte-exactly") {
  CheckRoundTrip("/build\xff/a.cu");
  CheckRoundTrip("caf\xe9");                           // Latin-1 é
  CheckRoundTrip("a\x80z");                            // a lone continuation byte
  CheckRoundTrip("x\xe2\x82");                         // a truncated three-byte sequence at the end
  CheckRoundTrip("\xe2\x82y");                         // ... and before ASCII
  CheckRoundTrip("\xf0\x9f\x98");                      // a truncated emoji
  CheckRoundTrip("\xc0\xaf \xed\xa0\x80");             // an overlong `/`, a UTF-16 surrogate
  CheckRoundTrip("\xf4\x90\x80\x80 \xfe");             // above U+10FFFF, never a lead byte
  CheckRoundTrip("\xf4\x8f\xbf\xbf\xf4\x8f\xbe\x80");  // genuine U+10FFFF and U+10FF80, the reserved range
  CheckRoundTrip("\xf4\x8f\xbf");                      // a truncated reserved character
  CheckRoundTrip("\xff\\\"\n\x01\xe9", false);         // bytes next to characters JSON escapes
}

TEST_CASE("valid UTF-8 is written as nlohmann writes it") {
  for (std::string text : {"caf\xc3\xa9", "\xf0\x9f\x98\x80 k.cu", "\xf4\x8f\xbd\xbf", "plain"}) {
    CAPTURE(text);
    json value = {{"k", text}, {text, text}};
    CHECK(DumpJsonBytes(value, 1) == value.dump(1));
    CHECK(ParseJsonBytes(value.dump()) == value);
    CheckRoundTrip(text);
  }
}

TEST_CASE("an escaped reserved character is the character, not a carried byte") {
  CHECK(ParseJsonBytes(R"("\uDBFF\uDFFF")") == "\xf4\x8f\xbf\xbf");
  CHECK(ParseJsonBytes(R"(["\udbff\udf80", "\uDBFF\uDFC0"])") ==
        json::array({"\xf4\x8f\xbe\x80", "\xf4\x8f\xbf\x80"}));
  CHECK(ParseJsonBytes(R"("\\uDBFF\\uDFFF")") == "\\uDBFF\\uDFFF");  // escaped backslashes, no escape
  CHECK(ParseJsonBytes(R"("\u00e9\uD83D\uDE00")") == "\xc3\xa9\xf0\x9f\x98\x80");
  CHECK(ParseJsonBytes("\"\\\\\xff\"") == "\\\xff");  // a backslash, then a byte
}

TEST_CASE("any mix of ASCII, escapes, partial and reserved sequences round-trips") {
  const std::string alphabet("a\\\"\0\x01\x80\x8f\xa9\xbe\xbf\xc3\xe2\x82\xf0\xf4\xff", 16);
  uint32_t seed = 1;
  for (int n = 0; n < 3000; ++n) {
    std::string bytes;
    for (int length = n % 13; length > 0; --length) {
      seed = seed * 1664525 + 1013904223;
      bytes += alphabet[(seed >> 16) % alphabet.size()];
    }
    json value = {{bytes, bytes}};
    json back = ParseJsonBytes(DumpJsonBytes(value));
    CAPTURE(bytes);
    REQUIRE(back == value);
  }
}

TEST_CASE("text that is not JSON still throws") {
  CHECK_THROWS_AS(ParseJsonBytes("[\xff]"), json::exception);
  CHECK_THROWS_AS(ParseJsonBytes("\"\xe9"), json::exception);
  CHECK_THROWS_AS(ParseJsonBytes(R"("\uDBFF)"), json::exception);
  CHECK_THROWS_AS(ParseJsonBytes("\"a\\"), json::exception);
}

TEST_CASE("a compile database CMake wrote in a Latin-1 directory keeps its bytes") {
  CompileDatabase db = ParseCompileDatabase(
      "[\n{\n  \"directory\": \"/home/caf\xe9/build\",\n"
      "  \"command\": \"/usr/local/cuda/bin/nvcc -I\\\"/home/caf\xe9/inc dir\\\" -x cu"
      " -c /home/caf\xe9/k\xff.cu -o CMakeFiles/t.dir/k\xff.cu.o\",\n"
      "  \"file\": \"/home/caf\xe9/k\xff.cu\",\n  \"output\": \"CMakeFiles/t.dir/k\xff.cu.o\"\n}\n]",
      "compile_commands.json", "/");
  REQUIRE(db.entries.size() == 1);
  CHECK(db.entries[0].directory == "/home/caf\xe9/build");
  CHECK(db.entries[0].file == "/home/caf\xe9/k\xff.cu");
  CHECK(db.entries[0].output == "CMakeFiles/t.dir/k\xff.cu.o");
  CHECK(db.entries[0].nvcc == std::vector<std::string>{"/usr/local/cuda/bin/nvcc", "-I/home/caf\xe9/inc dir",
                                                       "-x", "cu", "-c", "/home/caf\xe9/k\xff.cu", "-o",
                                                       "CMakeFiles/t.dir/k\xff.cu.o"});
}

TEST_CASE("launcher records with bytes round-trip") {
  TuRecord record{"/b\xff", TuCommandHash({"nvcc", "-c", "caf\xe9.cu"}), {"/w\xe9/a.ii.deps"}, "caf\xe9.cu"};
  record.captures = {"/w\xe9/capture/step0"};
  std::optional<TuRecord> back =
      FindTuRecord(FormatTuRecords({{"/w\xe9/caf\xe9.o-1", record}}), "/w\xe9/caf\xe9.o-1");
  REQUIRE(back);
  CHECK(back->cwd == record.cwd);
  CHECK(back->depfiles == record.depfiles);
  CHECK(back->source == record.source);
  CHECK(back->captures == record.captures);
}

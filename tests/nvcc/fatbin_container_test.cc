#include "src/nvcc/fatbin_container.h"

#include <doctest/doctest.h>

#include <fstream>
#include <sstream>

#include "src/graph/fatbin_embedding.h"

namespace fastcuda {
namespace {

/// An entry as fatbinary lays one out: kind, version, a 64-byte header
/// giving the payload's size, then the payload.
std::string Entry(uint16_t kind, std::string_view payload) {
  std::string entry(64, '\0');
  entry[0] = static_cast<char>(kind);
  entry[2] = entry[3] = 1;
  entry[4] = 64;
  for (size_t i = 0; i < 8; ++i) entry[8 + i] = static_cast<char>(payload.size() >> (8 * i) & 0xff);
  return entry + std::string(payload);
}

/// tests/transcripts/NAME.fatbin.c, as nvcc -keep left it (record.sh).
std::string Recorded(const std::string& name) {
  std::ifstream in(std::string(FASTCUDA_TRANSCRIPTS) + "/" + name + ".fatbin.c");
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

/// The bytes of a `.fatbin.c`'s `.quad` values.
std::string QuadBytes(const std::string& fatbin_c) {
  std::string bytes;
  for (size_t at = fatbin_c.find("0x"); at != std::string::npos; at = fatbin_c.find("0x", at + 18)) {
    uint64_t quad = std::stoull(fatbin_c.substr(at + 2, 16), nullptr, 16);
    for (int i = 0; i < 8; ++i) bytes += static_cast<char>(quad >> (8 * i) & 0xff);
  }
  return bytes;
}

TEST_CASE("a fatbin reads into its entries and writes back the same bytes") {
  std::vector<std::string_view> entries;
  std::string ptx = Entry(1, std::string(24, 'p')), elf = Entry(2, std::string(40, 'e'));
  std::string fatbin = WriteFatbin(1, {ptx, elf});
  CHECK(fatbin.size() == 16 + ptx.size() + elf.size());
  CHECK(fatbin.substr(0, 8) == std::string("\x50\xed\x55\xba\x01\x00\x10\x00", 8));
  Fatbin read = ReadFatbin(fatbin);
  CHECK(read.version == 1);
  REQUIRE(read.entries.size() == 2);
  CHECK(read.entries[0] == ptx);
  CHECK(read.entries[1] == elf);
  CHECK(WriteFatbin(read.version, read.entries) == fatbin);
  CHECK(ReadFatbin(WriteFatbin(1, {})).entries.empty());
}

TEST_CASE("fatbins of one image each join into the fatbin of all of them") {
  std::string a = Entry(2, std::string(16, 'a')), b = Entry(1, std::string(8, 'b')), c = Entry(2, "");
  CHECK(JoinFatbins({WriteFatbin(1, {a}), WriteFatbin(1, {b, c})}) == WriteFatbin(1, {a, b, c}));
  CHECK_THROWS_AS(JoinFatbins({}), FatbinError);
  CHECK_THROWS_WITH_AS(JoinFatbins({WriteFatbin(1, {a}), WriteFatbin(2, {b})}),
                       "fatbins of different versions", FatbinError);
}

TEST_CASE("a fatbin nvcc embedded reads, splits and joins back, and renders as fatbinary's text") {
  std::string whole_c = Recorded("whole");
  size_t data = whole_c.find("fatbinData:");
  std::string bytes = QuadBytes(whole_c.substr(data, whole_c.find("\".text") - data));
  Fatbin fatbin = ReadFatbin(bytes);
  REQUIRE(fatbin.entries.size() == 2);  // -arch=sm_80: SASS and PTX
  std::vector<std::string> one_each;
  for (std::string_view entry : fatbin.entries) one_each.push_back(WriteFatbin(fatbin.version, {entry}));
  CHECK(JoinFatbins(one_each) == bytes);
  // The empty fatbin's text, holding these bytes, is fatbinary's text for them.
  CHECK(WithFatbinData(Recorded("whole.probe"), bytes) == whole_c);
  CHECK(WithFatbinData(Recorded("relocatable.probe"), bytes)->find("fatbinData[418]") != std::string::npos);
  CHECK_FALSE(WithFatbinData(Recorded("whole.probe"), bytes.substr(0, 12)));
  CHECK_FALSE(WithFatbinData("int x;\n", bytes));
}

TEST_CASE("the last line of a fatbin's text joins its values with a space") {
  std::string probe = Recorded("whole.probe");
  for (size_t entries = 0; entries < 4; ++entries) {
    std::vector<std::string> parts(entries, Entry(2, std::string(8, 'x')));  // 9 quads each
    std::vector<std::string_view> views(parts.begin(), parts.end());
    std::string text = *WithFatbinData(probe, WriteFatbin(1, views));
    size_t quads = 2 + 9 * entries;
    size_t last = text.rfind("\".quad ");
    std::string line = text.substr(last, text.find('\n', last) - last);
    size_t values = quads % 4 == 0 ? 4 : quads % 4;
    CHECK(std::count(line.begin(), line.end(), 'x') == values);
    CHECK((line.find(", ") != std::string::npos) == (values > 1 && values < 4));
    CHECK(text.find("fatbinData[" + std::to_string(quads) + "]") != std::string::npos);
  }
}

TEST_CASE("truncated or corrupt fatbins are rejected with what is wrong, never read past their end") {
  std::string fatbin = WriteFatbin(1, {Entry(2, std::string(40, 'e')), Entry(1, std::string(24, 'p'))});
  CHECK_THROWS_WITH_AS(ReadFatbin(""), "not a fatbin: 0 bytes, less than its header", FatbinError);
  CHECK_THROWS_WITH_AS(ReadFatbin(std::string(16, 'x')), "not a fatbin: no magic number", FatbinError);
  for (size_t size = 0; size < fatbin.size(); ++size) {
    CHECK_THROWS_AS(ReadFatbin(std::string_view(fatbin).substr(0, size)), FatbinError);
  }
  // Every byte of the headers set to every value: a fatbin read, or an error.
  std::vector<size_t> header_bytes;
  for (size_t i = 0; i < 16 + 16; ++i) header_bytes.push_back(i);
  for (size_t i = 16 + 104; i < 16 + 104 + 16; ++i) header_bytes.push_back(i);
  for (size_t at : header_bytes) {
    for (int value = 0; value < 256; ++value) {
      std::string corrupt = fatbin;
      corrupt[at] = static_cast<char>(value);
      try {
        Fatbin read = ReadFatbin(corrupt);
        size_t total = 16;
        for (std::string_view entry : read.entries) total += entry.size();
        CHECK(total == corrupt.size());
      } catch (const FatbinError&) {
      }
    }
  }
  std::string overrun = fatbin;
  overrun[16 + 15] = '\x7f';  // the first entry's payload size, huge
  CHECK_THROWS_WITH_AS(ReadFatbin(overrun), "fatbin entry overruns the fatbin at byte 16", FatbinError);
  std::string body = fatbin;
  body[8] = 1;
  CHECK_THROWS_WITH_AS(ReadFatbin(body), doctest::Contains("bytes after its header"), FatbinError);
}

}  // namespace
}  // namespace fastcuda

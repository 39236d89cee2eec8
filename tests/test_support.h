// Helpers shared by the unit tests: recorded transcripts and a fake disk.
#pragma once

#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>

#include <re2/re2.h>

#include "src/base/file_system.h"
#include "src/nvcc/transcript.h"

namespace fastcuda::testing {

/// The text of tests/transcripts/NAME.dryrun.
inline std::string TranscriptText(const std::string& name) {
  std::ifstream in(std::string(FASTCUDA_TRANSCRIPTS) + "/" + name + ".dryrun");
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

/// A recorded transcript, parsed with an empty ambient environment.
inline Transcript LoadTranscript(const std::string& name) {
  return ParseTranscript(TranscriptText(name), [](std::string_view) { return std::nullopt; });
}

/// A disk holding exactly the files it is given.
class FakeFileSystem : public FileSystem {
 public:
  explicit FakeFileSystem(std::map<std::string, std::string> files = {}) : files_(std::move(files)) {}
  bool IsFile(const std::string& path) const override { return files_.count(path) > 0; }
  std::optional<std::string> Read(const std::string& path) const override {
    auto it = files_.find(path);
    if (it == files_.end()) return std::nullopt;
    return it->second;
  }

 private:
  std::map<std::string, std::string> files_;
};

/// How many times `pattern` (RE2) matches in `text`.
inline int CountMatches(const std::string& text, const std::string& pattern) {
  re2::StringPiece input(text);
  int count = 0;
  RE2 re(pattern);
  while (RE2::FindAndConsume(&input, re)) ++count;
  return count;
}

}  // namespace fastcuda::testing

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

/// A disk holding exactly the files it is given; writes change it, each
/// one a tick of its clock later than the last.
class FakeFileSystem : public WritableFileSystem {
 public:
  explicit FakeFileSystem(std::map<std::string, std::string> files = {}) : files_(std::move(files)) {
    for (const auto& [path, content] : files_) mtimes_[path] = Tick();
  }
  bool IsFile(const std::string& path) const override { return files_.count(path) > 0; }
  std::optional<std::string> Read(const std::string& path) const override {
    auto it = files_.find(path);
    if (it == files_.end()) return std::nullopt;
    return it->second;
  }
  std::optional<std::filesystem::file_time_type> MTime(const std::string& path) const override {
    auto it = mtimes_.find(path);
    if (it == mtimes_.end()) return std::nullopt;
    return it->second;
  }
  void SetMTime(const std::string& path, std::filesystem::file_time_type time) override { mtimes_[path] = time; }
  void Write(const std::string& path, const std::string& content) override {
    files_[path] = content;
    mtimes_[path] = Tick();
  }
  bool Remove(const std::string& path) override {
    mtimes_.erase(path);
    return files_.erase(path) > 0;
  }
  bool Rename(const std::string& from, const std::string& to) override {
    auto it = files_.find(from);
    if (it == files_.end()) return false;
    files_[to] = it->second;
    mtimes_[to] = mtimes_[from];
    Remove(from);
    return true;
  }
  const std::map<std::string, std::string>& files() const { return files_; }

 private:
  std::filesystem::file_time_type Tick() { return clock_ += std::chrono::seconds(1); }
  std::map<std::string, std::string> files_;
  std::map<std::string, std::filesystem::file_time_type> mtimes_;
  std::filesystem::file_time_type clock_{};
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

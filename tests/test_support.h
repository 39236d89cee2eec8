// Helpers shared by the unit tests: recorded transcripts and a fake disk.
#pragma once

#include <algorithm>
#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <re2/re2.h>

#include "src/base/command_io.h"
#include "src/base/dryrun_runner.h"
#include "src/base/file_system.h"
#include "src/graph/step_graph.h"
#include "src/nvcc/transcript.h"

namespace fastcuda::testing {

/// The text of tests/transcripts/NAME.dryrun.
inline std::string TranscriptText(const std::string& name) {
  std::ifstream in(std::string(FASTCUDA_TRANSCRIPTS) + "/" + name + ".dryrun");
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

/// tests/transcripts/NAME.fatbin.c, as nvcc -keep left it (record.sh).
inline std::string RecordedFatbin(const std::string& name) {
  std::ifstream in(std::string(FASTCUDA_TRANSCRIPTS) + "/" + name + ".fatbin.c");
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
    for (const auto& [path, content] : files_) mtimes_[path] = Changed(path);
  }
  FakeFileSystem(std::initializer_list<std::pair<const std::string, std::string>> files)
      : FakeFileSystem(std::map<std::string, std::string>(files)) {}
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
  std::optional<uintmax_t> Size(const std::string& path) const override {
    std::optional<std::string> content = Read(path);
    if (!content) return std::nullopt;
    return content->size();
  }
  void SetMTime(const std::string& path, std::filesystem::file_time_type time) override {
    mtimes_[path] = time;
    Changed(path);
  }
  std::optional<int64_t> ChangeTime(const std::string& path) const override {
    auto it = ctimes_.find(path);
    if (it == ctimes_.end()) return std::nullopt;
    return it->second.time_since_epoch().count();
  }
  int64_t ClockNow() const override { return clock_.time_since_epoch().count(); }
  void Touch(const std::string& path) override { mtimes_[path] = Changed(path); }
  void Write(const std::string& path, const std::string& content) override {
    files_[path] = content;
    attributes_.erase(path);  // a new file, as WriteFileAtomically writes
    mtimes_[path] = Changed(path);
  }
  void Append(const std::string& path, const std::string& content) override {
    files_[path] += content;
    mtimes_[path] = Changed(path);
  }
  bool Remove(const std::string& path) override {
    mtimes_.erase(path);
    attributes_.erase(path);
    ctimes_.erase(path);
    return files_.erase(path) > 0;
  }
  std::vector<std::string> FilesIn(const std::string& dir) const override {
    std::vector<std::string> files;
    for (const auto& [path, content] : files_) {
      if (std::filesystem::path(path).parent_path() == dir) files.push_back(path);
    }
    return files;
  }
  bool Rename(const std::string& from, const std::string& to) override {
    auto it = files_.find(from);
    if (it == files_.end()) return false;
    files_[to] = it->second;
    mtimes_[to] = mtimes_[from];
    std::map<std::string, std::string> attributes = attributes_[from];
    Remove(from);
    attributes_[to] = std::move(attributes);
    Changed(to);
    return true;
  }
  void Symlink(const std::string& target, const std::string& path) override { links_[path] = target; }
  std::optional<std::string> Attribute(const std::string& path, const std::string& name) const override {
    auto file = attributes_.find(path);
    if (file == attributes_.end() || !file->second.contains(name)) return std::nullopt;
    return file->second.at(name);
  }
  bool SetAttribute(const std::string& path, const std::string& name, const std::string& value) override {
    if (!keeps_attributes || !IsFile(path)) return false;
    attributes_[path][name] = value;
    Changed(path);
    return true;
  }
  bool keeps_attributes = true;  ///< false: as a file system without extended attributes
  const std::map<std::string, std::string>& files() const { return files_; }
  const std::map<std::string, std::string>& links() const { return links_; }  ///< their targets, by path

 private:
  std::filesystem::file_time_type Tick() { return clock_ += std::chrono::seconds(1); }
  /// Stamps a change of `path` (its ctime) a tick later than the last.
  std::filesystem::file_time_type Changed(const std::string& path) { return ctimes_[path] = Tick(); }
  std::map<std::string, std::string> files_;
  std::map<std::string, std::string> links_;
  std::map<std::string, std::map<std::string, std::string>> attributes_;  ///< by path, then name
  std::map<std::string, std::filesystem::file_time_type> mtimes_;
  std::map<std::string, std::filesystem::file_time_type> ctimes_;
  std::filesystem::file_time_type clock_{};
};

/// Runs no program: remembers each it was asked to run and answers with
/// `answer` (none: a success that printed nothing).
class FakeCommandRunner : public CommandRunner {
 public:
  ProcessResult Run(const ProcessSpec& spec) override {
    ran.push_back(spec);
    return answer ? answer(spec) : ProcessResult{};
  }
  std::function<ProcessResult(const ProcessSpec&)> answer;
  std::vector<ProcessSpec> ran;
};

/// A command's CommandIo on fakes: its processes to `runner`, its files on
/// `fs`, the environment `environment` (which a test may change between
/// calls).
struct FakeIo {
  explicit FakeIo(FakeFileSystem files = FakeFileSystem(), std::map<std::string, std::string> variables = {})
      : fs(std::move(files)), environment(std::move(variables)) {}
  FakeIo(const FakeIo&) = delete;
  FakeIo& operator=(const FakeIo&) = delete;
  FakeCommandRunner runner;
  FakeFileSystem fs;
  std::map<std::string, std::string> environment;
  const CommandIo io{runner, fs, environment};
};

/// Writes the dryrun nvcc would for `nvcc -c SRC -o OUT [flags]`, with a
/// fresh process id each time. With `quirky`, every transcript also holds a
/// number that changes from call to call, which no substitution reproduces.
class FakeDryrunRunner : public DryrunRunner {
 public:
  explicit FakeDryrunRunner(bool quirky = false) : quirky_(quirky) {}

  std::optional<std::string> Dryrun(const std::vector<std::string>& argv,
                                    const std::string& cwd) const override {
    int call = ++calls;  // this call's number, however many run at once
    std::string source, output, flags;
    for (size_t i = 1; i < argv.size(); ++i) {
      if (argv[i] == "-o") output = argv[++i];
      else if (argv[i].size() > 3 && argv[i].substr(argv[i].size() - 3) == ".cu") source = argv[i];
      else if (argv[i] != "-c") flags += " " + argv[i];
    }
    if (quirky_) flags += " -DCALL=" + std::to_string(call);
    std::string stem = std::filesystem::path(source).stem().string();
    std::string tmp = "/tmp/tmpxft_" + std::to_string(1000 + call) + "_00000000-";
    std::string abs = (std::filesystem::path(cwd) / source).lexically_normal().string();
    return "#$ PATH=/cuda/bin" + (path_after.empty() ? "" : ":" + path_after) +
           "\n"
           "#$ gcc -E -x c++" +
           flags + " \"" + source + "\" -o \"" + tmp + "5_" + stem +
           ".cpp4.ii\"\n"
           "#$ cudafe++ --orig_src_file_name \"" +
           source + "\" --orig_src_path_name \"" + abs + "\" --gen_c_file_name \"" + tmp + "6_" + stem +
           ".cudafe1.cpp\" --stub_file_name \"tmpxft_" + std::to_string(1000 + call) + "_00000000-6_" + stem +
           ".cudafe1.stub.c\" \"" + tmp + "5_" + stem +
           ".cpp4.ii\"\n"
           "#$ gcc -c -x c++ \"" +
           tmp + "6_" + stem + ".cudafe1.cpp\" -o \"" + output + "\"\n";
  }

  ProgramIdentity Identify(const std::string& program) const override {
    auto stamp = stamps.find(program);
    return {"/cuda/bin/" + program, stamp == stamps.end() ? "1" : stamp->second};
  }

  mutable std::atomic<int> calls{0};
  std::map<std::string, std::string> stamps;  ///< a program's stamp, where not "1"
  std::string path_after;                     ///< the PATH nvcc ran with, after its own directory

 private:
  bool quirky_;
};

/// Answers every dryrun with one recorded transcript (or fails), counting calls.
class RecordedRunner : public DryrunRunner {
 public:
  explicit RecordedRunner(std::optional<std::string> text) : text_(std::move(text)) {}
  std::optional<std::string> Dryrun(const std::vector<std::string>& command,
                                    const std::string&) const override {
    commands.push_back(command);
    return text_;
  }
  ProgramIdentity Identify(const std::string& program) const override { return {program, "1"}; }
  mutable std::vector<std::vector<std::string>> commands;

 private:
  std::optional<std::string> text_;
};

/// How many times `pattern` (RE2) matches in `text`.
inline int CountMatches(const std::string& text, const std::string& pattern) {
  re2::StringPiece input(text);
  int count = 0;
  RE2 re(pattern);
  while (RE2::FindAndConsume(&input, re)) ++count;
  return count;
}

/// The directory and work directory of the unit tests' recorded nvcc call.
inline constexpr char kProjectDir[] = "/src/project";
inline constexpr char kWorkDir[] = "/build/w/kernel.o-1234";

/// The graph of tests/transcripts/NAME.dryrun, run in kProjectDir (which
/// holds kernel.cu) with its temporaries in kWorkDir.
inline StepGraph RecordedGraph(const std::string& name) {
  return BuildStepGraph(LoadTranscript(name), {kProjectDir, kWorkDir, {}},
                        FakeFileSystem({{std::string(kProjectDir) + "/kernel.cu", ""}}));
}

/// True when every step of `graph` waits only for steps listed before it:
/// the order every producer of a StepGraph keeps.
inline bool IsTopological(const StepGraph& graph) {
  for (size_t i = 0; i < graph.steps.size(); ++i) {
    const std::vector<size_t>& after = graph.steps[i].after;
    if (std::any_of(after.begin(), after.end(), [&](size_t before) { return before >= i; })) return false;
  }
  return true;
}

/// True if `words` holds `word`.
inline bool Contains(const std::vector<std::string>& words, const std::string& word) {
  return std::find(words.begin(), words.end(), word) != words.end();
}

}  // namespace fastcuda::testing

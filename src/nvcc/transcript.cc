#include "src/nvcc/transcript.h"

#include <re2/re2.h>

#include "src/base/toolchain_environment.h"

namespace fastcuda {
namespace {

const RE2& VariableLine() {
  static const RE2 re(R"re(#\$ ([A-Za-z_][A-Za-z0-9_]*)=(.*))re", RE2::Latin1);
  return re;
}

const RE2& FilterDependenciesLine() {
  static const RE2 re(R"re(#\$ -- Filter Dependencies -- > (.*?)\s*)re", RE2::Latin1);
  return re;
}

const RE2& CommandLine() {
  static const RE2 re(R"re(#\$ (.*))re", RE2::Latin1);
  return re;
}

/// Splits text into lines.
std::vector<std::string_view> Lines(std::string_view text) {
  std::vector<std::string_view> lines;
  while (!text.empty()) {
    size_t end = text.find('\n');
    lines.push_back(text.substr(0, end));
    if (end == std::string_view::npos) break;
    text.remove_prefix(end + 1);
  }
  return lines;
}

}  // namespace

Transcript ParseTranscript(std::string_view text, const VariableLookup& ambient) {
  Transcript transcript;
  VariableLookup lookup = [&](std::string_view name) -> std::optional<std::string> {
    auto it = transcript.variables.find(std::string(name));
    if (it != transcript.variables.end()) return it->second;
    return ambient(name);
  };
  for (std::string_view line : Lines(text)) {
    std::string name, value, depfile, command;
    if (RE2::FullMatch(line, FilterDependenciesLine(), &depfile)) {
      TranscriptCommand filter;
      filter.kind = TranscriptCommand::Kind::kFilterDependencies;
      filter.depfile = depfile;
      transcript.commands.push_back(std::move(filter));
    } else if (RE2::FullMatch(line, VariableLine(), &name, &value)) {
      transcript.variables[name] = value;
    } else if (RE2::FullMatch(line, CommandLine(), &command)) {
      ShellCommand split = SplitShellCommand(command, lookup);
      if (split.words.empty()) continue;
      transcript.commands.push_back(
          {TranscriptCommand::Kind::kRun, std::move(split.words), std::move(split.redirections), {}});
    } else if (!line.empty()) {
      transcript.other_output.append(line).append("\n");
    }
  }
  return transcript;
}

std::string WithInheritedPath(std::string_view text, const std::string& ambient_path) {
  std::string result;
  for (std::string_view line : Lines(text)) {
    std::string name, value;
    if (RE2::FullMatch(line, VariableLine(), &name, &value) && name == "PATH") {
      result += "#$ PATH=" + InheritingPath(value, ambient_path);
    } else {
      result.append(line);
    }
    result += '\n';
  }
  return result;
}

}  // namespace fastcuda

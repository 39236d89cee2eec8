#include "src/nvcc/indirect_inputs.h"

#include <re2/re2.h>

#include <set>
#include <string_view>

#include "src/base/shell_words.h"
#include "src/nvcc/nvcc_options.h"

namespace fastcuda {
namespace {

/// The values of an nvlink option in each of its forms (`-LDIR`, `-L DIR`,
/// `--library-path=A,B`, `--library-path A,B`), in their order.
std::vector<std::string> OptionValues(const std::vector<std::string>& argv, std::string_view short_name,
                                      std::string_view long_name) {
  std::vector<std::string> values;
  auto add_list = [&](std::string_view list) {
    for (size_t start = 0; start <= list.size();) {
      size_t comma = std::min(list.find(',', start), list.size());
      if (comma > start) values.emplace_back(list.substr(start, comma - start));
      start = comma + 1;
    }
  };
  for (size_t i = 1; i < argv.size(); ++i) {
    std::string_view word = argv[i];
    bool separate = (word == short_name || word == long_name) && i + 1 < argv.size();
    if (separate) add_list(argv[++i]);
    else if (word.starts_with(long_name) && word.size() > long_name.size() && word[long_name.size()] == '=')
      add_list(word.substr(long_name.size() + 1));
    else if (word.starts_with(short_name) && word.size() > short_name.size() && !word.starts_with("--"))
      values.emplace_back(word.substr(short_name.size()));
  }
  return values;
}

/// True for the steps that run the host compiler, which `-ccbin` may name.
bool RunsHostCompiler(StepKind kind) {
  return IsPreprocess(kind) || kind == StepKind::kHostCompile || kind == StepKind::kHostLink;
}

}  // namespace

std::vector<std::string> ResponseFilesWithin(const std::vector<std::string>& argv, const std::string& cwd,
                                             const FileSystem& fs) {
  std::vector<std::string> found;
  std::set<std::string> seen;
  std::vector<std::string> named = ResponseFiles(argv, cwd);
  for (size_t i = 0; i < named.size(); ++i) {
    std::optional<std::string> text = fs.Read(named[i]);
    if (!text || !seen.insert(named[i]).second) continue;
    found.push_back(named[i]);
    std::vector<std::string> words = SplitShellWords(*text);
    for (const std::string& nested : ResponseFiles(words, cwd)) named.push_back(nested);
  }
  return found;
}

std::vector<std::string> LinkedLibraries(const std::vector<std::string>& argv, const std::string& cwd,
                                         const FileSystem& fs) {
  std::vector<std::string> directories = OptionValues(argv, "-L", "--library-path");
  std::vector<std::string> libraries;
  for (const std::string& name : OptionValues(argv, "-l", "--library")) {
    for (const std::string& directory : directories) {
      std::string library = directory + "/lib" + name + ".a";
      if (fs.IsFile(ResolvePath(cwd, library))) {
        libraries.push_back(library);
        break;
      }
    }
  }
  return libraries;
}

std::vector<std::string> IndirectInputs(const Step& step, const std::string& cwd, const FileSystem& fs) {
  if (step.argv.empty()) return {};
  std::vector<std::string> inputs = ResponseFilesWithin(step.argv, cwd, fs);
  const std::string& program = step.argv.front();
  if (RunsHostCompiler(step.kind) && program.find('/') != std::string::npos &&
      fs.IsFile(ResolvePath(cwd, program))) {
    inputs.push_back(program);
  }
  if (step.kind == StepKind::kNvlink) {
    std::vector<std::string> libraries = LinkedLibraries(step.argv, cwd, fs);
    inputs.insert(inputs.end(), libraries.begin(), libraries.end());
  }
  return inputs;
}

bool AssemblesOtherFiles(std::string_view preprocessed) {
  static const RE2 directive(R"re((?i)\.(incbin|include)\b)re", RE2::Latin1);
  return RE2::PartialMatch(preprocessed, directive);
}

}  // namespace fastcuda

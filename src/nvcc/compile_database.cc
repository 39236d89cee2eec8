#include "src/nvcc/compile_database.h"

#include <re2/re2.h>

#include <algorithm>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "src/base/json_bytes.h"
#include "src/base/shell_words.h"
#include "src/nvcc/nvcc_options.h"
#include "src/nvcc/step.h"

namespace fastcuda {
namespace {

using nlohmann::json;

/// The words of an entry, from `arguments` or from `command` (CheckShape
/// found one of them, of its type).
std::vector<std::string> Words(const json& entry) {
  if (entry.contains("arguments")) return entry["arguments"].get<std::vector<std::string>>();
  return SplitShellWords(entry["command"].get<std::string>());
}

/// Throws unless `entry` is an entry as the format defines it: an object
/// with `arguments` (an array of strings) or `command` (a string), and
/// `directory`, `file` and `output` strings where present. A malformed entry
/// is an error, never an entry left out: its TU would go unbuilt unnoticed.
void CheckShape(const json& entry) {
  if (!entry.is_object()) throw std::invalid_argument("is not a JSON object");
  auto arguments = entry.find("arguments");
  if (arguments != entry.end() &&
      (!arguments->is_array() || !std::all_of(arguments->begin(), arguments->end(),
                                              [](const json& word) { return word.is_string(); }))) {
    throw std::invalid_argument("\"arguments\" is not an array of strings");
  }
  for (const char* name : {"command", "directory", "file", "output"}) {
    auto field = entry.find(name);
    if (field != entry.end() && !field->is_string()) {
      throw std::invalid_argument("\"" + std::string(name) + "\" is not a string");
    }
  }
  if (arguments == entry.end() && !entry.contains("command")) {
    throw std::invalid_argument("has neither \"arguments\" nor \"command\"");
  }
}

std::string StringField(const json& entry, const char* name) {
  auto it = entry.find(name);
  return it != entry.end() && it->is_string() ? it->get<std::string>() : "";
}

/// The output of an nvcc call: the entry's `output`, else nvcc's `-o`, else
/// the file nvcc names after the source (`nvcc -c kern.cu` writes kern.o).
/// That name reads the entry's words only (an -odir in a response file is
/// not seen); it names the work dir, and a split graph writes where its
/// dryrun says.
std::string OutputOf(const json& entry, const std::vector<std::string>& nvcc) {
  std::string output = StringField(entry, "output");
  if (!output.empty()) return output;
  std::vector<std::string> values = FlagValues(nvcc, {"-o", "--output-file"});
  if (!values.empty()) return values.back();
  return DefaultNvccOutput({nvcc.begin() + 1, nvcc.end()}, StringField(entry, "file"));
}

}  // namespace

bool IsNvcc(std::string_view program) {
  static const RE2 nvcc(R"re((?:.*/)?nvcc(?:\.exe)?)re", RE2::Latin1);
  return RE2::FullMatch(program, nvcc);
}

std::optional<CompileEntry> NvccEntryOf(const std::vector<std::string>& words) {
  // The compiler is the last word of the prefix before the first option;
  // words before it are launchers (ccache, sccache, ...).
  auto options = std::find_if(words.begin(), words.end(),
                              [](const std::string& w) { return !w.empty() && w[0] == '-'; });
  auto nvcc = std::find_if(words.begin(), options, [](const std::string& w) { return IsNvcc(w); });
  if (nvcc == options) return std::nullopt;
  CompileEntry compile;
  compile.nvcc.assign(nvcc, words.end());
  compile.launcher.assign(words.begin(), nvcc);
  return compile;
}

CompileDatabase ParseCompileDatabase(std::string_view text, const std::string& name,
                                     const std::string& base_dir) {
  json document;
  try {
    document = ParseJsonBytes(text);
  } catch (const json::exception& error) {
    // nlohmann's message gives the line and column.
    throw CompileDatabaseError(name + ": not valid JSON: " + error.what());
  }
  if (!document.is_array()) throw CompileDatabaseError(name + ": expected a JSON array of entries");
  CompileDatabase database;
  for (size_t index = 0; index < document.size(); ++index) {
    const json& entry = document[index];
    std::vector<std::string> words;
    try {
      CheckShape(entry);
      words = Words(entry);
    } catch (const std::exception& error) {  // a malformed entry, unbalanced quotes
      throw CompileDatabaseError(name + ": entry " + std::to_string(index) + ": " + error.what());
    }
    std::optional<CompileEntry> compile = NvccEntryOf(words);
    if (!compile) {
      ++database.skipped;
      continue;
    }
    std::filesystem::path directory(StringField(entry, "directory"));
    if (directory.empty()) {
      throw CompileDatabaseError(name + ": entry " + std::to_string(index) + " has no \"directory\"");
    }
    compile->directory = (std::filesystem::path(base_dir) / directory).lexically_normal().string();
    if (compile->directory.size() > 1 && compile->directory.back() == '/') compile->directory.pop_back();
    compile->file = StringField(entry, "file");
    compile->output = OutputOf(entry, compile->nvcc);
    if (compile->output.empty()) {
      throw CompileDatabaseError(name + ": entry " + std::to_string(index) + " (" + compile->file +
                                 ") names no output");
    }
    database.entries.push_back(std::move(*compile));
  }
  return database;
}

}  // namespace fastcuda

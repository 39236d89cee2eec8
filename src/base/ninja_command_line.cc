#include "src/base/ninja_command_line.h"

#include <string_view>

namespace fastcuda {
namespace {

/// Ninja's short options that take a value ("d:f:j:k:l:t:w:C:").
bool TakesValue(char option) { return std::string_view("dfjkltwC").find(option) != std::string_view::npos; }

}  // namespace

NinjaCommandLine ParseNinjaCommandLine(const std::vector<std::string>& argv) {
  NinjaCommandLine line;
  bool options_ended = false;
  for (size_t i = 1; i < argv.size(); ++i) {
    const std::string& word = argv[i];
    if (options_ended || word.size() < 2 || word[0] != '-') {
      line.targets.push_back(word);
      continue;
    }
    if (word == "--") {
      options_ended = true;
      continue;
    }
    if (word[1] == '-') {  // --verbose, --quiet, --version: no values; a prefix names one, as in getopt_long
      if (word.size() > 2 && std::string_view("--quiet").starts_with(word)) line.quiet = true;
      continue;
    }
    // A cluster of flags ("-nv") ends at the first option that takes a value.
    for (size_t at = 1; at < word.size(); ++at) {
      char option = word[at];
      if (!TakesValue(option)) continue;
      std::string value = at + 1 < word.size() ? word.substr(at + 1) : (i + 1 < argv.size() ? argv[++i] : "");
      if (option == 'C') line.dir = value;
      else if (option == 'f') line.manifest = value;
      else if (option == 't') line.tool = value;
      else if (option == 'j') line.jobs_given = true;
      break;
    }
  }
  return line;
}

}  // namespace fastcuda

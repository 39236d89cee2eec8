// libFuzzer target: the input split at NUL bytes is an argv and a path.
// What FastCuda writes into a manifest, Ninja must read back to the same
// words: the edge's path and the command it evaluates (`ninja -t commands`).
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#include "ninja-gen/ninja_writer.h"
#include "src/base/file_system.h"
#include "src/base/process.h"
#include "src/base/shell_words.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::vector<std::string> words(1);
  for (size_t i = 0; i < size; ++i) {
    if (data[i] == '\0') words.emplace_back();
    else if (data[i] == '\n' || data[i] == '\r') return 0;  // no newline survives a shell line
    else words.back() += static_cast<char>(data[i]);
  }
  std::string output = "out/" + words.back();
  if (words.back().empty() || words.size() > 64) return 0;
  // Ninja canonicalizes paths: only check ones it keeps as they are. It has
  // no escape for '|' in a path; EscapeNinjaPath refuses those (unit-tested).
  if (output.find('|') != std::string::npos || output.find("//") != std::string::npos ||
      output.find("/./") != std::string::npos || output.find("/../") != std::string::npos ||
      output.back() == '/' || output.back() == '.' ||
      output.back() == '^') {  // on Ninja's command line a final ^ means "the edge using this"
    return 0;
  }
  fastcuda::NinjaWriter writer;
  writer.Rule({"ECHO", {{"command", "$cmd"}}});
  writer.Build({{output}, {}, "ECHO", {}, {}, {}, {{"cmd", fastcuda::JoinShellWords(words)}}, {}});
  static const std::string dir = [] {
    char pattern[] = "/tmp/fastcuda-fuzz-XXXXXX";
    return std::string(mkdtemp(pattern));
  }();
  fastcuda::WriteFileAtomically(dir + "/build.ninja", writer.text());
  fastcuda::ProcessResult result =
      fastcuda::RunProcess({{"ninja", "-C", dir, "-t", "commands", output}, "", {}, true});
  if (result.exit_code != 0) abort();  // Ninja could not read what we wrote
  std::string line = result.stdout_text.substr(0, result.stdout_text.find('\n'));
  if (fastcuda::SplitShellWords(line) != words) abort();
  return 0;
}

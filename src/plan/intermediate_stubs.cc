#include "src/plan/intermediate_stubs.h"

#include <algorithm>
#include <sstream>
#include <stdexcept>

#include "src/base/shell_words.h"
#include "src/base/stable_hash.h"
#include "src/graph/stubbed_intermediates.h"

namespace fastcuda {
namespace {

/// The first line of every stub: no preprocessed file or cudafe++ output
/// starts so (theirs start with a line marker).
constexpr std::string_view kStubHeader = "// fastcuda intermediate stub 1";

/// No stub is longer: a longer file is a body, which need not be read.
constexpr uintmax_t kLongestStub = 4096;

std::string BodyHash(const std::string& body) { return StableHashHex(body, 16); }

}  // namespace

std::string StubText(const std::string& body) {
  return std::string(kStubHeader) + "\nhash " + BodyHash(body) + "\nsize " + std::to_string(body.size()) +
         "\n// The step that reads this file has run; FastCuda keeps the hash of what it read and\n"
         "// writes it again when that step must run again. Set " +
         std::string(kKeepIntermediatesVariable) + "=1 to keep such files whole.\n";
}

std::optional<IntermediateStub> ParseStub(const std::string& text) {
  if (!text.starts_with(kStubHeader) || text.size() > kLongestStub) return std::nullopt;
  std::istringstream lines(text);
  std::string header, hash_word, size_word;
  IntermediateStub stub;
  if (!std::getline(lines, header) || header != kStubHeader) return std::nullopt;
  if (!(lines >> hash_word >> stub.hash >> size_word >> stub.size)) return std::nullopt;
  if (hash_word != "hash" || size_word != "size" || stub.hash.size() != 16) return std::nullopt;
  return stub;
}

std::optional<uintmax_t> BodySize(const WritableFileSystem& fs, const std::string& path) {
  std::optional<uintmax_t> size = fs.Size(path);
  if (!size || *size > kLongestStub) return size;
  std::optional<IntermediateStub> stub = ParseStub(fs.Read(path).value_or(""));
  return stub ? stub->size : *size;
}

bool SameBody(const std::string& previous, const std::string& now) {
  if (previous == now) return true;
  std::optional<IntermediateStub> stub = ParseStub(previous);
  return stub && stub->size == now.size() && stub->hash == BodyHash(now);
}

Regenerated RegenerateStubbedInputs(const StepInvocation& consumer, const ProducerRunner& run,
                                    WritableFileSystem& fs) {
  Regenerated regenerated;
  for (const std::string& input : consumer.stubbed_inputs) {
    std::string path = ResolvePath(consumer.cwd, input);
    std::optional<std::string> stub = fs.Read(path);
    if (!stub || !ParseStub(*stub)) continue;
    std::optional<std::string> recipe = fs.Read(RecipePath(path));
    if (!recipe) {
      fs.Remove(path);
      throw std::runtime_error("the command that writes " + path + " is not recorded; build again to run it");
    }
    StepInvocation producer = StepInvocation::Parse(SplitShellWords(*recipe));
    producer.restores_body = true;
    regenerated.exit_code = run(producer);
    // Ninja reads a step's depfile only after its own edge: this one would stay.
    if (!producer.depfile.empty()) fs.Remove(ResolvePath(producer.cwd, producer.depfile));
    if (regenerated.exit_code != 0) return regenerated;
    std::optional<std::string> body = fs.Read(path);
    if (!body || ParseStub(*body))
      throw std::runtime_error("the command that writes " + path + " did not write it again");
    if (!SameBody(*stub, *body)) regenerated.changed.push_back(path);
  }
  return regenerated;
}

void StubConsumedInputs(const StepInvocation& consumer, const Regenerated& regenerated, bool keep_whole,
                        WritableFileSystem& fs) {
  for (const std::string& input : consumer.stubbed_inputs) {
    std::string path = ResolvePath(consumer.cwd, input);
    const std::vector<std::string>& changed = regenerated.changed;
    if (std::find(changed.begin(), changed.end(), path) != changed.end()) {
      fs.Remove(path);
      continue;
    }
    if (keep_whole) continue;
    std::optional<std::string> body = fs.Read(path);
    std::optional<std::filesystem::file_time_type> mtime = fs.MTime(path);
    if (!body || !mtime || ParseStub(*body)) continue;
    fs.Write(path, StubText(*body));
    fs.SetMTime(path, *mtime);
  }
}

void WriteRecipes(const StepInvocation& producer, WritableFileSystem& fs) {
  if (producer.recipe_outputs.empty()) return;
  const std::string recipe = JoinShellWords(producer.Words()) + "\n";
  for (const std::string& output : producer.recipe_outputs)
    WriteIfChanged(fs, RecipePath(ResolvePath(producer.cwd, output)), recipe);
}

}  // namespace fastcuda

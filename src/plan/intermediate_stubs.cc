#include "src/plan/intermediate_stubs.h"

#include <algorithm>
#include <stdexcept>

#include "src/base/shell_words.h"
#include "src/base/stable_hash.h"
#include "src/graph/stubbed_intermediates.h"

namespace fastcuda {
namespace {

/// The first line of every stub: no preprocessed file or cudafe++ output
/// starts so (theirs start with a line marker).
constexpr std::string_view kStubHeader = "// fastcuda intermediate stub 2\n";

/// What the stub says to a reader, after its hash and size; its recipe follows.
constexpr std::string_view kStubNote =
    "// The step that reads this file has run; FastCuda keeps the hash of what it read and\n"
    "// writes it again with the command below when that step must run again.\n"
    "// FASTCUDA_KEEP_INTERMEDIATES=1 in a build's environment keeps such files whole.\n";

/// No stub is longer (its recipe is one command): BodySize need not read a
/// longer file.
constexpr uintmax_t kLongestStub = 1 << 20;

std::string BodyHash(const std::string& body) { return StableHashHex(body, 16); }

/// The text after `prefix` up to the end of its line at `at`, which moves
/// past it; nullopt where the line does not start so.
std::optional<std::string> LineAfter(const std::string& text, size_t& at, std::string_view prefix) {
  if (text.compare(at, prefix.size(), prefix) != 0) return std::nullopt;
  size_t end = text.find('\n', at);
  if (end == std::string::npos) return std::nullopt;
  std::string value = text.substr(at + prefix.size(), end - at - prefix.size());
  at = end + 1;
  return value;
}

/// `stub` with `recipe`, where it holds another, keeping the file's mtime.
void RewriteRecipe(const std::string& path, IntermediateStub stub, const std::string& recipe,
                   WritableFileSystem& fs) {
  if (stub.recipe == recipe) return;
  std::optional<std::filesystem::file_time_type> mtime = fs.MTime(path);
  stub.recipe = recipe;
  fs.Write(path, FormatStub(stub));
  if (mtime) fs.SetMTime(path, *mtime);
}

/// Makes the body at `path` its stub, which names `recipe`, with the body's
/// mtime; false where it stays whole (no body, a stub already, or one no
/// longer than its stub).
bool ReplaceByStub(const std::string& path, const std::string& recipe, WritableFileSystem& fs) {
  std::optional<std::string> body = fs.Read(path);
  std::optional<std::filesystem::file_time_type> mtime = fs.MTime(path);
  if (!body || !mtime || ParseStub(*body)) return false;
  std::string stub = FormatStub(StubOf(*body, recipe));
  if (stub.size() >= body->size()) return false;  // a stub would save nothing
  fs.Write(path, stub);
  fs.SetMTime(path, *mtime);
  return true;
}

}  // namespace

IntermediateStub StubOf(const std::string& body, const std::string& recipe) {
  return {BodyHash(body), body.size(), recipe};
}

std::string FormatStub(const IntermediateStub& stub) {
  return std::string(kStubHeader) + "hash " + stub.hash + "\nsize " + std::to_string(stub.size) + "\n" +
         std::string(kStubNote) + stub.recipe;
}

std::optional<IntermediateStub> ParseStub(const std::string& text) {
  if (!text.starts_with(kStubHeader)) return std::nullopt;
  size_t at = kStubHeader.size();
  std::optional<std::string> hash = LineAfter(text, at, "hash ");
  std::optional<std::string> size = hash ? LineAfter(text, at, "size ") : std::nullopt;
  if (!size || hash->size() != 16 || size->empty() ||
      size->find_first_not_of("0123456789") != std::string::npos ||
      text.compare(at, kStubNote.size(), kStubNote)) {
    return std::nullopt;
  }
  return IntermediateStub{*hash, std::stoull(*size), text.substr(at + kStubNote.size())};
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
  std::vector<std::string> inputs = consumer.stubbed_inputs;
  inputs.insert(inputs.end(), consumer.regenerated_inputs.begin(), consumer.regenerated_inputs.end());
  for (const std::string& input : inputs) {
    std::string path = ResolvePath(consumer.cwd, input);
    std::optional<std::string> text = fs.Read(path);
    std::optional<IntermediateStub> stub = text ? ParseStub(*text) : std::nullopt;
    if (!stub) continue;
    std::vector<std::string> words = SplitShellWords(stub->recipe);
    if (words.empty()) {
      fs.Remove(path);
      throw std::runtime_error("the command that writes " + path + " is not recorded; build again to run it");
    }
    StepInvocation producer = StepInvocation::Parse(words);
    producer.restores_body = true;
    regenerated.exit_code = run(producer);
    // Ninja reads a step's depfile only after its own edge: this one would stay.
    if (!producer.depfile.empty()) fs.Remove(ResolvePath(producer.cwd, producer.depfile));
    if (regenerated.exit_code != 0) return regenerated;
    std::optional<std::string> body = fs.Read(path);
    if (!body || ParseStub(*body))
      throw std::runtime_error("the command that writes " + path + " did not write it again");
    if (!SameBody(*text, *body)) regenerated.changed.push_back(path);
  }
  return regenerated;
}

void StubConsumedInputs(const StepInvocation& consumer, const Regenerated& regenerated, bool keep_whole,
                        WritableFileSystem& fs) {
  for (const std::string& path : regenerated.changed) {
    fs.Remove(path);
    fs.Remove(RecipePath(path));
  }
  for (const std::string& input : consumer.stubbed_inputs) {
    std::string path = ResolvePath(consumer.cwd, input);
    const std::vector<std::string>& changed = regenerated.changed;
    if (keep_whole || std::find(changed.begin(), changed.end(), path) != changed.end()) continue;
    // Without its recipe a body could not come back: it stays whole.
    std::optional<std::string> recipe = fs.Read(RecipePath(path));
    if (recipe && !recipe->empty() && ReplaceByStub(path, *recipe, fs)) fs.Remove(RecipePath(path));
  }
}

void StubUnreadOutputs(const StepInvocation& step, bool keep_whole, WritableFileSystem& fs) {
  if (keep_whole) return;
  for (const std::string& output : step.stubbed_outputs) {
    std::string path = ResolvePath(step.cwd, output);
    std::optional<std::filesystem::file_time_type> mtime = fs.MTime(path);
    if (!mtime || fs.Read(path) == "") continue;
    fs.Write(path, "");
    fs.SetMTime(path, *mtime);
  }
}

void WriteRecipes(const StepInvocation& producer, WritableFileSystem& fs) {
  if (producer.recipe_outputs.empty()) return;
  const std::string recipe = JoinShellWords(producer.Words()) + "\n";
  for (const std::string& output : producer.recipe_outputs) {
    std::string path = ResolvePath(producer.cwd, output);
    std::optional<std::string> text = fs.Read(path);
    if (std::optional<IntermediateStub> stub = text ? ParseStub(*text) : std::nullopt) {
      RewriteRecipe(path, *stub, recipe, fs);  // the body came out as the stub says
      fs.Remove(RecipePath(path));
    } else {
      WriteIfChanged(fs, RecipePath(path), recipe);
    }
  }
}

}  // namespace fastcuda

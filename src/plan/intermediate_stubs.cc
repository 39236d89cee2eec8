#include "src/plan/intermediate_stubs.h"

#include <algorithm>
#include <stdexcept>

#include <re2/re2.h>

#include "src/base/shell_words.h"
#include "src/base/stable_hash.h"

namespace fastcuda {
namespace {

std::string BodyHash(const std::string& body) { return ContentHashHex(body); }

/// Where a stub is made before it takes its body's place (ReplaceByStub).
std::string NewStubPath(const std::string& path) { return path + ".fastcuda-stub"; }

/// Makes the body at `path` its stub, with the body's mtime; false where it
/// stays whole (no body, an empty one, or a file system that keeps no
/// extended attributes).
bool ReplaceByStub(const std::string& path, WritableFileSystem& fs) {
  std::optional<std::string> body = fs.Read(path);
  std::optional<std::filesystem::file_time_type> mtime = fs.MTime(path);
  if (!body || body->empty() || !mtime) return false;
  const IntermediateStub stub = StubOf(*body);
  const std::string made = NewStubPath(path);
  fs.Write(made, "");
  if (!fs.SetAttribute(made, std::string(kStubAttribute), stub.hash + " " + std::to_string(stub.size))) {
    fs.Remove(made);
    return false;
  }
  fs.SetMTime(made, *mtime);
  return fs.Rename(made, path);
}

/// The step that `command` (a line of `ninja -t commands`) runs: nullopt
/// for one that is no `fastcuda step`.
std::optional<StepInvocation> StepOfCommand(const std::string& command) {
  std::vector<std::string> words = SplitShellWords(command);
  if (words.size() < 2 || words[1] != "step") return std::nullopt;
  try {
    return StepInvocation::Parse({words.begin() + 2, words.end()});
  } catch (const std::invalid_argument&) {
    return std::nullopt;
  }
}

}  // namespace

IntermediateStub StubOf(const std::string& body) { return {BodyHash(body), body.size()}; }

std::optional<IntermediateStub> ReadStub(const WritableFileSystem& fs, const std::string& path) {
  if (fs.Size(path) != 0u) return std::nullopt;
  std::optional<std::string> value = fs.Attribute(path, std::string(kStubAttribute));
  IntermediateStub stub;
  if (!value || !RE2::FullMatch(*value, R"re(([0-9a-f]{16}) (\d+))re", &stub.hash, &stub.size))
    return std::nullopt;
  return stub;
}

std::optional<uintmax_t> BodySize(const WritableFileSystem& fs, const std::string& path) {
  std::optional<IntermediateStub> stub = ReadStub(fs, path);
  return stub ? std::optional<uintmax_t>(stub->size) : fs.Size(path);
}

bool StandsFor(const IntermediateStub& stub, const std::string& body) {
  return stub.size == body.size() && stub.hash == BodyHash(body);
}

std::optional<StepInvocation> ProducerInManifest(const StepInvocation& consumer, const std::string& path,
                                                 const std::string& ninja, CommandRunner& runner) {
  if (consumer.manifest.empty()) return std::nullopt;
  ProcessSpec spec{
      {ninja, "-f", consumer.manifest, "-t", "commands", "-s", path}, "", {}, /*capture_output=*/true};
  ProcessResult listed = runner.Run(spec);
  if (listed.exit_code != 0) return std::nullopt;
  std::string command = listed.stdout_text;
  while (!command.empty() && command.back() == '\n') command.pop_back();
  if (command.find('\n') != std::string::npos) return std::nullopt;  // one edge writes it
  return StepOfCommand(command);
}

Regenerated RegenerateStubbedInputs(const StepInvocation& consumer, const ProducerLookup& find,
                                    const ProducerRunner& run, WritableFileSystem& fs) {
  Regenerated regenerated;
  std::vector<std::string> inputs = consumer.stubbed_inputs;
  inputs.insert(inputs.end(), consumer.regenerated_inputs.begin(), consumer.regenerated_inputs.end());
  for (const std::string& input : inputs) {
    std::string path = ResolvePath(consumer.cwd, input);
    std::optional<IntermediateStub> stub = ReadStub(fs, path);
    // No body of these is empty: an empty file is a stub whose attribute a
    // copy dropped (tar or cp without extended attributes), never read as it is.
    const bool lost = !stub && fs.Size(path) == 0u;
    if (!stub && !lost) continue;
    std::optional<StepInvocation> producer = find(path);
    if (!producer) {
      fs.Remove(path);
      throw std::runtime_error("no step of the manifest writes " + path + "; build again to run it");
    }
    producer->restores_body = true;
    regenerated.exit_code = run(*producer);
    // Ninja reads a step's depfile only after its own edge: this one would stay.
    if (!producer->depfile.empty()) fs.Remove(ResolvePath(producer->cwd, producer->depfile));
    if (regenerated.exit_code != 0) return regenerated;
    std::optional<std::string> body = fs.Read(path);
    if (!body || ReadStub(fs, path))
      throw std::runtime_error("the command that writes " + path + " did not write it again");
    if (lost || !StandsFor(*stub, *body)) regenerated.changed.push_back(path);
  }
  return regenerated;
}

void StubConsumedInputs(const StepInvocation& consumer, const Regenerated& regenerated, bool keep_whole,
                        WritableFileSystem& fs) {
  for (const std::string& path : regenerated.changed) fs.Remove(path);
  for (const std::string& input : consumer.stubbed_inputs) {
    std::string path = ResolvePath(consumer.cwd, input);
    const std::vector<std::string>& changed = regenerated.changed;
    if (keep_whole || std::find(changed.begin(), changed.end(), path) != changed.end()) continue;
    // Without a manifest to find its producer in, a body could not come back: it stays whole.
    if (!consumer.manifest.empty() && !ReadStub(fs, path)) ReplaceByStub(path, fs);
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

}  // namespace fastcuda

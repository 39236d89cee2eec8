#include "src/plan/step_protocol.h"

#include <cstdlib>
#include <sstream>
#include <stdexcept>

#include "src/base/build_load.h"
#include "src/base/stable_hash.h"

namespace fastcuda {
namespace {

// The options of `fastcuda step` by what they concern, besides kCwdFlag and
// kSplitAutoFlag (whose home is build_load, which counts the running steps
// that carry it).
constexpr std::string_view kProgramDir = "--program-dir", kWorkDir = "--work-dir", kInput = "--input";
constexpr std::string_view kManifest = "--manifest";
constexpr std::string_view kEnvFile = "--env-file", kRssLog = "--rss-log", kTempRoot = "--temp-root";
constexpr std::string_view kReadsLog = "--reads-log", kLockDir = "--lock-dir", kMemoryKind = "--memory-kind",
                           kMemoryInput = "--memory-input", kMemoryPeaks = "--memory-peaks";
constexpr std::string_view kLineTablePtx = "--line-table-ptx";
constexpr std::string_view kDepfile = "--depfile", kAbsoluteDepfile = "--absolute-depfile",
                           kKeepDepfile = "--keep-depfile", kDepfileFrom = "--depfile-from",
                           kKeptHeadersOf = "--kept-headers-of";
constexpr std::string_view kStamp = "--stamp", kCapture = "--capture", kBlankDisabled = "--blank-disabled";
constexpr std::string_view kFailureNotes = "--failure-notes", kFailureNote = "--failure-note";
constexpr std::string_view kKeepTmpdir = "--keep-tmpdir", kFreshOutputs = "--fresh-outputs";
constexpr std::string_view kNeverKeepIncbin = "--never-keep-incbin", kResponseKey = "--response-key";
constexpr std::string_view kStubHostSource = "--stub-host-source", kStubName = "--stub-name";
constexpr std::string_view kStubInput = "--stub-input", kStubbedByReader = "--stubbed-by-reader",
                           kStubOutput = "--stub-output", kRegenerateInput = "--regenerate-input";
constexpr std::string_view kNinjaDepfileFrom = "--ninja-depfile-from", kNinjaDepfile = "--ninja-depfile";
constexpr std::string_view kReads = "--reads", kMadeBy = "--made-by";
constexpr std::string_view kCacheLookup = "--cache-lookup", kSkipOnHit = "--skip-on-hit",
                           kHitObject = "--hit-object", kCacheStore = "--cache-store",
                           kCacheStoreDepfile = "--cache-store-depfile", kDyndep = "--dyndep",
                           kWaiter = "--waiter", kOnHit = "--on-hit", kOnMiss = "--on-miss";
constexpr std::string_view kEarlyObject = "--early-object", kEmbedFatbin = "--embed-fatbin",
                           kFatbinBytes = "--fatbin-bytes", kFatbinLayout = "--fatbin-layout",
                           kFatbinImage = "--fatbin-image";

/// Ends the options: the program's command follows.
constexpr std::string_view kCommandFollows = "--";

/// Appends `flag value`, unless the value is empty (the option is not given).
void AddOption(std::vector<std::string>& words, std::string_view flag, const std::string& value) {
  if (!value.empty()) words.insert(words.end(), {std::string(flag), value});
}

/// The embedding options, after the step's others.
void AddEmbedding(std::vector<std::string>& words, const FatbinEmbedding& embedding) {
  AddOption(words, kEarlyObject, embedding.early_object);
  AddOption(words, kEmbedFatbin, embedding.fatbin_c);
  if (embedding.fatbin_bytes.empty()) return;
  AddOption(words, kFatbinBytes, embedding.fatbin_bytes);
  AddOption(words, kFatbinLayout, std::string(FatbinLayoutName(embedding.layout)));
}

FatbinLayout LayoutNamed(const std::string& name) {
  std::optional<FatbinLayout> layout = ParseFatbinLayout(name);
  if (!layout) throw std::invalid_argument(std::string(kFatbinLayout) + " is whole or relocatable");
  return *layout;
}

FatbinEmbedding& Embedding(StepInvocation& call) {
  if (!call.embedding) call.embedding.emplace();
  return *call.embedding;
}

/// The waiter that an --on-hit or --on-miss input belongs to: the last one named.
LookupWaiter& LastWaiter(StepInvocation& call, std::string_view flag) {
  if (call.waiters.empty())
    throw std::invalid_argument(std::string(flag) + " follows no " + std::string(kWaiter));
  return call.waiters.back();
}

std::string StdoutPath(const std::string& prefix) { return prefix + ".out"; }
std::string StderrPath(const std::string& prefix) { return prefix + ".err"; }
std::string ExitCodePath(const std::string& prefix) { return prefix + ".rc"; }

}  // namespace

std::string StepTempDir(const StepInvocation& step) {
  if (step.temp_root.empty() || step.outputs.empty() || step.keeps_tmpdir) return "";
  std::string outputs;
  for (const std::string& output : step.outputs) outputs += output + '\n';
  return step.temp_root + "/" + StableHashHex(outputs, 16);
}

std::vector<std::string> StepInvocation::SharedWords() const {
  std::vector<std::string> words;
  AddOption(words, kEnvFile, env_file);
  AddOption(words, kRssLog, rss_log);
  AddOption(words, kReadsLog, reads_log);
  AddOption(words, kTempRoot, temp_root);
  AddOption(words, kLockDir, lock_dir);
  AddOption(words, kMemoryKind, memory_kind);
  AddOption(words, kManifest, manifest);
  AddOption(words, kFailureNotes, failure_notes);
  return words;
}

std::vector<std::string> StepInvocation::OwnWords() const {
  std::vector<std::string> words;
  AddOption(words, kCwdFlag, cwd);
  AddOption(words, kProgramDir, program_dir);
  AddOption(words, kWorkDir, work_dir);
  for (const std::string& input : inputs) AddOption(words, kInput, input);
  AddOption(words, kDepfile, depfile);
  if (absolute_depfile) words.emplace_back(kAbsoluteDepfile);
  AddOption(words, kKeepDepfile, kept_depfile);
  AddOption(words, kKeptHeadersOf, kept_headers_source);
  AddOption(words, kDepfileFrom, depfile_from);
  AddOption(words, kLineTablePtx, line_table_ptx);
  AddOption(words, kStamp, stamp);
  if (fresh_outputs) words.emplace_back(kFreshOutputs);
  AddOption(words, kCapture, capture);
  AddOption(words, kFailureNote, failure_note);
  if (keeps_tmpdir) words.emplace_back(kKeepTmpdir);
  if (split_share > 0) AddOption(words, kSplitAutoFlag, std::to_string(split_share));
  AddOption(words, kBlankDisabled, blank_disabled);
  if (never_keep_incbin) words.emplace_back(kNeverKeepIncbin);
  AddOption(words, kResponseKey, response_key);
  AddOption(words, kStubHostSource, stub_include.host_source);
  AddOption(words, kStubName, stub_include.stub_name);
  for (const std::string& input : stubbed_inputs) AddOption(words, kStubInput, input);
  for (const std::string& input : regenerated_inputs) AddOption(words, kRegenerateInput, input);
  for (const std::string& output : stubbed_by_reader) AddOption(words, kStubbedByReader, output);
  for (const std::string& output : stubbed_outputs) AddOption(words, kStubOutput, output);
  AddOption(words, kNinjaDepfileFrom, ninja_depfile_from);
  AddOption(words, kNinjaDepfile, ninja_depfile);
  for (const std::string& read : reads) AddOption(words, kReads, read);
  AddOption(words, kMadeBy, made_by);
  AddOption(words, kMemoryInput, memory_input);
  AddOption(words, kMemoryPeaks, memory_peaks);
  if (cache_lookup) {
    words.emplace_back(kCacheLookup);
    AddOption(words, kDyndep, cache.dyndep);
  }
  for (const LookupWaiter& waiter : waiters) {
    AddOption(words, kWaiter, waiter.output);
    for (const std::string& input : waiter.on_hit) AddOption(words, kOnHit, input);
    for (const std::string& input : waiter.on_miss) AddOption(words, kOnMiss, input);
  }
  AddOption(words, kSkipOnHit, cache.result);
  AddOption(words, kHitObject, cache.hit_object);
  for (const std::string& word : cache.store) AddOption(words, kCacheStore, word);
  for (const std::string& depfile : cache.store_depfiles) AddOption(words, kCacheStoreDepfile, depfile);
  if (embedding) AddEmbedding(words, *embedding);
  for (const std::string& image : fatbin_images) AddOption(words, kFatbinImage, image);
  return words;
}

std::vector<std::string> StepInvocation::CommandWords() const {
  std::vector<std::string> words = {std::string(kCommandFollows)};
  words.insert(words.end(), argv.begin(), argv.end());
  return words;
}

std::vector<std::string> StepInvocation::Words() const {
  std::vector<std::string> words = SharedWords();
  for (const std::vector<std::string>& part : {OwnWords(), outputs, CommandWords()}) {
    words.insert(words.end(), part.begin(), part.end());
  }
  return words;
}

StepInvocation StepInvocation::Parse(const std::vector<std::string>& args) {
  StepInvocation call;
  size_t i = 0;
  auto value = [&](std::string_view flag) -> std::string {
    if (i + 1 >= args.size()) throw std::invalid_argument(std::string(flag) + " needs a value");
    return args[++i];
  };
  for (; i < args.size(); ++i) {
    std::string_view flag = args[i];
    if (flag == kCommandFollows) {
      call.argv.assign(args.begin() + i + 1, args.end());
      break;
    }
    if (!flag.starts_with("--")) call.outputs.push_back(args[i]);  // Ninja's $out: the step's outputs
    else if (flag == kCwdFlag) call.cwd = value(flag);
    else if (flag == kProgramDir) call.program_dir = value(flag);
    else if (flag == kWorkDir) call.work_dir = value(flag);
    else if (flag == kInput) call.inputs.push_back(value(flag));
    else if (flag == kEnvFile) call.env_file = value(flag);
    else if (flag == kDepfile) call.depfile = value(flag);
    else if (flag == kAbsoluteDepfile) call.absolute_depfile = true;
    else if (flag == kKeepDepfile) call.kept_depfile = value(flag);
    else if (flag == kKeptHeadersOf) call.kept_headers_source = value(flag);
    else if (flag == kDepfileFrom) call.depfile_from = value(flag);
    else if (flag == kLineTablePtx) call.line_table_ptx = value(flag);
    else if (flag == kStamp) call.stamp = value(flag);
    else if (flag == kFreshOutputs) call.fresh_outputs = true;
    else if (flag == kCapture) call.capture = value(flag);
    else if (flag == kFailureNote) call.failure_note = value(flag);
    else if (flag == kFailureNotes) call.failure_notes = value(flag);
    else if (flag == kRssLog) call.rss_log = value(flag);
    else if (flag == kReadsLog) call.reads_log = value(flag);
    else if (flag == kTempRoot) call.temp_root = value(flag);
    else if (flag == kLockDir) call.lock_dir = value(flag);
    else if (flag == kMemoryKind) call.memory_kind = value(flag);
    else if (flag == kManifest) call.manifest = value(flag);
    else if (flag == kMemoryInput) call.memory_input = value(flag);
    else if (flag == kMemoryPeaks) call.memory_peaks = value(flag);
    else if (flag == kKeepTmpdir) call.keeps_tmpdir = true;
    else if (flag == kSplitAutoFlag) call.split_share = std::stoi(value(flag));
    else if (flag == kBlankDisabled) call.blank_disabled = value(flag);
    else if (flag == kNeverKeepIncbin) call.never_keep_incbin = true;
    else if (flag == kResponseKey) call.response_key = value(flag);
    else if (flag == kStubHostSource) call.stub_include.host_source = value(flag);
    else if (flag == kStubName) call.stub_include.stub_name = value(flag);
    else if (flag == kStubInput) call.stubbed_inputs.push_back(value(flag));
    else if (flag == kRegenerateInput) call.regenerated_inputs.push_back(value(flag));
    else if (flag == kStubbedByReader) call.stubbed_by_reader.push_back(value(flag));
    else if (flag == kStubOutput) call.stubbed_outputs.push_back(value(flag));
    else if (flag == kNinjaDepfileFrom) call.ninja_depfile_from = value(flag);
    else if (flag == kNinjaDepfile) call.ninja_depfile = value(flag);
    else if (flag == kReads) call.reads.push_back(value(flag));
    else if (flag == kMadeBy) call.made_by = value(flag);
    else if (flag == kCacheLookup) call.cache_lookup = true;
    else if (flag == kDyndep) call.cache.dyndep = value(flag);
    else if (flag == kWaiter) call.waiters.push_back({value(flag), {}, {}});
    else if (flag == kOnHit) LastWaiter(call, flag).on_hit.push_back(value(flag));
    else if (flag == kOnMiss) LastWaiter(call, flag).on_miss.push_back(value(flag));
    else if (flag == kSkipOnHit) call.cache.result = value(flag);
    else if (flag == kHitObject) call.cache.hit_object = value(flag);
    else if (flag == kCacheStore) call.cache.store.push_back(value(flag));
    else if (flag == kCacheStoreDepfile) call.cache.store_depfiles.push_back(value(flag));
    else if (flag == kEarlyObject) Embedding(call).early_object = value(flag);
    else if (flag == kEmbedFatbin) Embedding(call).fatbin_c = value(flag);
    else if (flag == kFatbinBytes) Embedding(call).fatbin_bytes = value(flag);
    else if (flag == kFatbinLayout) Embedding(call).layout = LayoutNamed(value(flag));
    else if (flag == kFatbinImage) call.fatbin_images.push_back(value(flag));
    else throw std::invalid_argument("unknown step option " + std::string(flag));
  }
  if (call.argv.empty()) throw std::invalid_argument("step needs -- COMMAND");
  return call;
}

std::string FormatFailureNotes(const std::vector<std::pair<std::string, FailureNote>>& notes) {
  std::string text;
  for (const auto& [key, note] : notes) {
    text += key + "\n" + (note.exit_code_shown ? "code" : "plain") + "\n" + note.object + "\n" +
            note.command + "\n";
  }
  return text;
}

std::optional<FailureNote> FindFailureNote(const std::string& text, const std::string& key) {
  std::istringstream lines(text);
  std::string at, kind;
  FailureNote note;
  while (std::getline(lines, at) && std::getline(lines, kind) && std::getline(lines, note.object) &&
         std::getline(lines, note.command)) {
    if (at != key) continue;
    if (kind != "code" && kind != "plain") return std::nullopt;
    note.exit_code_shown = kind == "code";
    return note;
  }
  return std::nullopt;
}

std::string FailedEdgeLines(const FailureNote& note, int exit_code) {
  std::string failed =
      note.exit_code_shown ? "FAILED: [code=" + std::to_string(exit_code) + "] " : "FAILED: ";
  return "\x1B[31m" + failed + "\x1B[0m" + note.object + " \n" + note.command + "\n";
}

void WriteCapture(const std::string& prefix, const CapturedOutput& output, WritableFileSystem& fs) {
  // A quiet success, most steps, replays as no capture at all: no files,
  // and for a quiet TU no capture directory (a disk block) either.
  if (output.stdout_text.empty() && output.stderr_text.empty() && output.exit_code == 0) {
    for (const std::string& path : {ExitCodePath(prefix), StdoutPath(prefix), StderrPath(prefix)})
      fs.Remove(path);
    return;
  }
  fs.Write(StdoutPath(prefix), output.stdout_text);
  fs.Write(StderrPath(prefix), output.stderr_text);
  // Last: its presence tells ReadCapture that the step ran. Empty for a
  // success, as the streams mostly are: an empty file takes no disk block.
  fs.Write(ExitCodePath(prefix), output.exit_code == 0 ? "" : std::to_string(output.exit_code) + "\n");
}

std::optional<CapturedOutput> ReadCapture(const std::string& prefix, const FileSystem& fs) {
  std::optional<std::string> exit_code = fs.Read(ExitCodePath(prefix));
  if (!exit_code) return std::nullopt;
  return CapturedOutput{fs.Read(StdoutPath(prefix)).value_or(""), fs.Read(StderrPath(prefix)).value_or(""),
                        std::atoi(exit_code->c_str())};
}

}  // namespace fastcuda

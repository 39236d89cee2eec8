#include "src/plan/graph_dir.h"

#include <re2/re2.h>

#include <algorithm>
#include <filesystem>
#include <functional>
#include <nlohmann/json.hpp>

#include "src/base/json_bytes.h"
#include "src/base/parallel_for.h"
#include "src/base/shell_words.h"
#include "src/base/stable_hash.h"

namespace fastcuda {
namespace {

using nlohmann::json;

/// Tokens separated by NUL; a TU is its object count, its objects, its
/// intermediates and an empty token.
/// The first token of a `kept-files` whose paths share prefixes.
constexpr std::string_view kSharedPrefixes = "kept-files 2";

void AppendToken(std::string& text, const std::string& token) {
  text += token;
  text += '\0';
}

}  // namespace

std::string GlobalManifestPath(const std::string& dir) { return dir + "/build.ninja"; }
std::string StepsManifestPath(const std::string& dir) { return dir + "/steps.ninja"; }
std::string NinjaLogPath(const std::string& dir) { return dir + "/.ninja_log"; }
std::string NinjaLogSourcePath(const std::string& dir) { return dir + "/ninja-log-path"; }
std::string TuRoot(const std::string& dir) { return dir + "/tu"; }
std::string LauncherWorkDir(const std::string& absolute_output) {
  std::filesystem::path output(absolute_output);
  return (output.parent_path() / ".fastcuda" / output.filename()).string();
}
std::string EnvFilePath(const std::string& work_dir) { return work_dir + "/nvcc.env"; }
std::string EarlierTuRecordPath(const std::string& work_dir) { return work_dir + "/record.json"; }
std::string CaptureDir(const std::string& work_dir) { return work_dir + "/capture"; }
std::string CapturePath(const std::string& capture_dir, const StepGraph& graph, size_t step_index) {
  return capture_dir + "/step" + std::to_string(step_index) + "-" +
         StableHashHex(JoinShellWords(graph.steps[step_index].argv));
}
std::string StepPeaksPath(const std::string& work_dir) { return work_dir + "/step-peaks"; }
std::string FailureNotesPath(const std::string& dir) { return dir + "/failed-edges"; }
std::string StepsFilePath(const std::string& dir) { return dir + "/steps.json"; }
std::string StepMemoryLogPath(const std::string& dir) { return dir + "/step-memory.tsv"; }
std::string StepTempRoot(const std::string& dir) { return dir + "/tmp"; }
std::string StepLocksDir(const std::string& dir) { return dir + "/step-locks"; }
std::string GraphDirOfStepLocks(const std::string& lock_dir) {
  return lock_dir.substr(0, lock_dir.rfind("/step-locks"));
}
std::string KeptFilesPath(const std::string& dir) { return dir + "/kept-files"; }
std::string SourceReadsPath(const std::string& dir) { return dir + "/source-reads.tsv"; }
std::string ReadFilesPath(const std::string& dir) { return dir + "/read-files.tsv"; }
std::string DryrunCachePath(const std::string& dir) { return dir + "/dryrun-cache.json"; }
std::string GenCommandPath(const std::string& dir) { return dir + "/gen-command.txt"; }
std::string ToolchainProgramsPath(const std::string& dir) { return dir + "/toolchain-programs.json"; }
std::string GraphObjectsPath(const std::string& dir) { return dir + "/objects.json"; }
std::string TuRecordsPath(const std::string& dir) { return dir + "/tu-records"; }
std::string LauncherBuildPath(const std::string& dir) { return dir + "/launcher-build.json"; }
std::string BuildArgsPath(const std::string& dir) { return dir + "/build-args"; }
std::string NoHistoryPath(const std::string& dir) { return dir + "/no-history"; }
std::string StepHistoryMarkPath(const std::string& dir) { return dir + "/step-history-mark"; }
std::string RememberedMemoryPath(const std::string& dir) { return dir + "/remembered-memory.tsv"; }
std::string LookupPassPath(const std::string& dir) { return dir + "/lookup-pass"; }
std::string PlannedLimitsPath(const std::string& dir) { return dir + "/planned-limits.json"; }
std::string FirstPhasePath(const std::string& dir) { return dir + "/first-phase"; }
std::string SharedEnvFilePath(const std::string& dir, const std::string& environment_text) {
  return dir + "/env/" + StableHashHex(environment_text, 16) + ".env";
}
std::string LadderDir(const std::string& dir) { return dir + "/priority"; }
std::string RungPath(const std::string& ladder_dir, size_t k) {
  return ladder_dir + "/rung" + std::to_string(k);
}
std::string LadderDyndepPath(const std::string& ladder_dir) { return ladder_dir + "/dyndep"; }
std::string LadderDyndepPlanPath(const std::string& ladder_dir) { return ladder_dir + "/dyndep-plan.json"; }
std::string AlwaysDirtyPath(const std::string& work_dir) { return work_dir + "/always-dirty"; }
std::string ObjectMadeByPath(const std::string& work_dir) { return work_dir + "/object-made-by"; }
std::string RewriteDir(const std::string& manifest_dir) { return manifest_dir + "/" + kRewriteDirName; }
std::string InRewriteDir(const std::string& name) { return std::string(kRewriteDirName) + "/" + name; }
std::string RewriteKeyPath(const std::string& dir) { return dir + "/ninja-key"; }
std::string SelfAsNinjaPath(const std::string& dir) { return dir + "/bin/ninja"; }
std::string SharedObjectsPath(const std::string& dir) { return dir + "/shared-objects.json"; }
std::string HandoversPath(const std::string& dir) { return dir + "/log-handovers.json"; }
std::string NoopCheckPath(const std::string& dir) { return dir + "/noop-check"; }
std::string BuildStartPath(const std::string& dir) { return dir + "/build-start"; }
std::string SourceTimesPath(const std::string& history_dir, const std::string& source_path) {
  return history_dir + "/" + std::filesystem::path(source_path).filename().string() + "-" +
         StableHashHex(source_path, 16) + ".json";
}
std::string ForgottenOnPath(const std::string& history_dir) { return history_dir + "/forgotten-on"; }

std::string StepsFileText(const std::vector<StepGraph>& graphs,
                          const std::function<std::string(const StepGraph&, const std::string&)>& ninja_path,
                          unsigned threads, const std::function<bool(const StepGraph&)>& on_request) {
  // Each TU's part is dumped on its own (in parallel) and the parts joined:
  // the same text as dumping the whole document at once.
  std::vector<std::string> tus(graphs.size());
  ParallelFor(graphs.size(), threads, [&](size_t i) {
    const StepGraph& graph = graphs[i];
    json steps = json::array();
    const std::string work_dir = graph.work_dir + "/";
    for (const GraphStep& step : graph.steps) {
      std::string output = step.outputs.empty() ? "" : ninja_path(graph, step.outputs.front());
      json recorded{{"kind", StepKindName(step.kind)}, {"arch", step.arch}, {"after", step.after}};
      // Most outputs lie in the work dir: named once for the TU.
      if (graph.work_dir.empty() || !output.starts_with(work_dir)) recorded["output"] = output;
      else recorded["in_work_dir"] = output.substr(work_dir.size());
      steps.push_back(std::move(recorded));
    }
    json tu{{"source", graph.source},
            {"source_path", graph.source.empty() ? "" : ResolvePath(graph.cwd, graph.source)},
            {"work_dir", graph.work_dir},
            {"steps", steps}};
    if (on_request && on_request(graph)) tu["on_request"] = true;
    tus[i] = DumpJsonBytes(tu);
  });
  std::string text = "{\"tus\":[";
  for (size_t i = 0; i < tus.size(); ++i) text += (i ? "," : "") + tus[i];
  return text + "]}\n";
}

std::vector<RecordedTu> ParseStepsFile(std::string_view text) {
  try {
    std::vector<RecordedTu> tus;
    const json document = ParseJsonBytes(text);  // kept alive: the loop refers into it
    for (const json& tu : document.at("tus")) {
      RecordedTu recorded{
          tu.at("source").get<std::string>(), {}, tu.value("on_request", false), tu.value("source_path", "")};
      for (const json& step : tu.at("steps")) {
        const size_t index = recorded.steps.size();
        std::vector<size_t> after = step.at("after").get<std::vector<size_t>>();
        for (size_t before : after) {
          if (before >= index) {
            throw std::runtime_error("steps.json: step " + std::to_string(index) + " of " + recorded.source +
                                     " waits for step " + std::to_string(before) +
                                     ", which is not before it (torn, or written by a FastCuda older "
                                     "than this one: the next build writes it anew)");
          }
        }
        std::string output = step.contains("in_work_dir") ? tu.at("work_dir").get<std::string>() + "/" +
                                                                step.at("in_work_dir").get<std::string>()
                                                          : step.at("output").get<std::string>();
        recorded.steps.push_back({step.at("kind").get<std::string>(), step.at("arch").get<std::string>(),
                                  output, std::move(after)});
      }
      tus.push_back(std::move(recorded));
    }
    return tus;
  } catch (const json::exception& error) {
    throw std::runtime_error(std::string("not a steps.json: ") + error.what());
  }
}

std::string EnvironmentFileText(const std::map<std::string, std::string>& environment) {
  return DumpJsonBytes(environment, 1) + "\n";
}

std::map<std::string, std::string> ParseEnvironmentFile(std::string_view text) {
  return ParseJsonBytes(text).get<std::map<std::string, std::string>>();
}

std::string FormatProgramRecord(const std::map<std::string, ProgramIdentity>& programs) {
  json record = json::object();
  for (const auto& [name, identity] : programs) record[name] = {identity.path, identity.stamp};
  return DumpJsonBytes(record, 1) + "\n";
}

std::map<std::string, ProgramIdentity> ParseProgramRecord(std::string_view text) {
  std::map<std::string, ProgramIdentity> programs;
  try {
    for (const auto& [name, identity] : ParseJsonBytes(text).get<std::map<std::string, json>>()) {
      auto fields = identity.get<std::vector<std::string>>();
      if (fields.size() == 2) programs[name] = {fields[0], fields[1]};
    }
  } catch (const json::exception&) {
    return {};
  }
  return programs;
}

std::string FormatPlannedLimits(const PlannedLimits& limits) {
  return DumpJsonBytes(json{{"memory_budget_kib", limits.memory_budget_kib},
                            {"memory_source", limits.memory_source},
                            {"jobs", limits.jobs},
                            {"jobs_source", limits.jobs_source},
                            {"peak_of_kind", limits.peak_of_kind}}) +
         "\n";
}

std::optional<PlannedLimits> ParsePlannedLimits(std::string_view text) {
  try {
    json limits = ParseJsonBytes(text);
    return PlannedLimits{limits.at("memory_budget_kib").get<int64_t>(),
                         limits.at("memory_source").get<std::string>(), limits.at("jobs").get<unsigned>(),
                         limits.at("jobs_source").get<std::string>(),
                         limits.value("peak_of_kind", std::map<std::string, int64_t>{})};
  } catch (const std::exception&) {
    return std::nullopt;  // an older FastCuda's directory, or a damaged file: the report leaves it out
  }
}

std::string StepMemoryLine(const std::string& output, int64_t peak_kib, int64_t cpu_ms,
                           const std::string& cache_outcome, const std::string& ninja_run) {
  std::string line = output + "\t" + std::to_string(peak_kib) + "\t" + std::to_string(cpu_ms);
  if (!cache_outcome.empty()) line += "\t" + cache_outcome;
  if (!ninja_run.empty()) line += "\tninja=" + ninja_run;
  return line + "\n";
}

namespace {

/// One well-formed line of step-memory.tsv.
struct StepMemoryLineFields {
  std::string output;
  int64_t peak_kib = 0;
  std::string cache_outcome;
  std::string ninja_run;
};

/// Calls `take` for each well-formed line.
void ForEachStepMemoryLine(std::string_view text,
                           const std::function<void(const StepMemoryLineFields&)>& take) {
  static const RE2 line(R"re(([^\t\n]+)\t(\d+)(?:\t\d+(?:\t(hit|miss|here))?(?:\tninja=([0-9.]+))?)?\n?)re",
                        RE2::Latin1);
  re2::StringPiece input(text.data(), text.size());
  StepMemoryLineFields fields;
  while (!input.empty()) {
    if (RE2::Consume(&input, line, &fields.output, &fields.peak_kib, &fields.cache_outcome,
                     &fields.ninja_run)) {
      take(fields);
      continue;
    }
    size_t newline = input.find('\n');
    input.remove_prefix(newline == re2::StringPiece::npos ? input.size() : newline + 1);
  }
}

}  // namespace

StepMemory ParseStepMemoryLog(std::string_view text) { return ParseStepMemoryRecords(text).peaks; }

StepMemory ReadPlannedPeaks(const std::string& dir, const FileSystem& fs) {
  StepMemory peaks = ParseStepMemoryLog(fs.Read(StepMemoryLogPath(dir)).value_or(""));
  for (const auto& [output, kib] : ParseStepMemoryLog(fs.Read(RememberedMemoryPath(dir)).value_or(""))) {
    peaks.try_emplace(output, kib);
  }
  return peaks;
}

StepMemoryRecords ParseStepMemoryRecords(std::string_view text) {
  StepMemoryRecords records;
  ForEachStepMemoryLine(text, [&](const StepMemoryLineFields& line) {
    records.peaks[line.output] = std::max(records.peaks[line.output], line.peak_kib);
    if (line.cache_outcome.empty()) records.cache_outcomes.erase(line.output);
    else records.cache_outcomes[line.output] = line.cache_outcome;
    records.ninja_runs[line.output].push_back(line.ninja_run);
  });
  return records;
}

std::string SourceReadLine(int64_t started, const std::string& output) {
  return std::to_string(started) + "\t" + output + "\n";
}

std::map<std::string, int64_t> ParseSourceReads(std::string_view text) {
  static const RE2 line(R"re((\d+)\t([^\n]+)\n)re", RE2::Latin1);
  re2::StringPiece input(text.data(), text.size());
  std::map<std::string, int64_t> started;
  int64_t time = 0;
  std::string output;
  while (!input.empty()) {
    if (RE2::Consume(&input, line, &time, &output)) {
      started[output] = time;
      continue;
    }
    // A line cut short (a step killed while it appended) or of another shape.
    size_t newline = input.find('\n');
    input.remove_prefix(newline == re2::StringPiece::npos ? input.size() : newline + 1);
  }
  return started;
}

std::string FormatKeptFiles(const std::vector<KeptFiles>& tus) {
  std::string text;
  AppendToken(text, std::string(kSharedPrefixes));
  std::string_view previous;
  auto append_path = [&](const std::string& path) {
    auto [end, _] = std::mismatch(previous.begin(), previous.end(), path.begin(), path.end());
    size_t shared = static_cast<size_t>(end - previous.begin());
    AppendToken(text, std::to_string(shared) + ":" + path.substr(shared));
    previous = path;
  };
  for (const KeptFiles& tu : tus) {
    if (tu.intermediates.empty()) continue;
    AppendToken(text, std::to_string(tu.objects.size()));
    for (const std::string& object : tu.objects) append_path(object);
    for (const std::string& path : tu.intermediates) append_path(path);
    AppendToken(text, "");
  }
  return text;
}

std::vector<KeptFiles> ParseKeptFiles(std::string_view text) {
  std::vector<std::string_view> tokens;
  for (size_t start = 0, end; start < text.size(); start = end + 1) {
    end = text.find('\0', start);
    if (end == std::string_view::npos) break;  // a torn last token: ignore it
    tokens.push_back(text.substr(start, end - start));
  }
  // Since kSharedPrefixes, a path is the count of bytes it shares with the
  // one before and the rest; before, the path whole.
  const bool shared_prefixes = !tokens.empty() && tokens.front() == kSharedPrefixes;
  std::string previous;
  auto path_of = [&](std::string_view token) -> std::optional<std::string> {
    if (!shared_prefixes) return std::string(token);
    size_t colon = token.find(':'), shared = 0;
    if (colon == std::string_view::npos) return std::nullopt;
    for (char digit : token.substr(0, colon)) {
      if (digit < '0' || digit > '9') return std::nullopt;
      shared = shared * 10 + (digit - '0');
    }
    if (shared > previous.size()) return std::nullopt;
    previous = previous.substr(0, shared) + std::string(token.substr(colon + 1));
    return previous;
  };
  std::vector<KeptFiles> tus;
  for (size_t i = shared_prefixes ? 1 : 0; i < tokens.size();) {
    KeptFiles tu;
    size_t objects = 0;
    for (char digit : tokens[i++]) {
      if (digit < '0' || digit > '9') return tus;  // not this format: keep what was read
      objects = objects * 10 + (digit - '0');
    }
    for (; i < tokens.size() && !tokens[i].empty(); ++i) {
      std::optional<std::string> path = path_of(tokens[i]);
      if (!path) return tus;  // not this format: keep what was read
      (tu.objects.size() < objects ? tu.objects : tu.intermediates).push_back(std::move(*path));
    }
    if (i == tokens.size()) break;  // torn: the TU's end is missing
    ++i;
    tus.push_back(std::move(tu));
  }
  return tus;
}

std::string NinjaDepsLogBeside(const std::string& log_path) {
  return (std::filesystem::path(log_path).parent_path() / ".ninja_deps").string();
}

std::string GraphNinjaLogPath(const std::string& dir, const FileSystem& fs) {
  return fs.Read(NinjaLogSourcePath(dir)).value_or(NinjaLogPath(dir));
}

}  // namespace fastcuda

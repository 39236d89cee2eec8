#include "src/plan/source_reads.h"

#include <algorithm>
#include <filesystem>
#include <optional>

#include "src/base/ninja_log.h"
#include "src/plan/graph_dir.h"

namespace fastcuda {
namespace {

/// A command hash that no command gets (but one in 2^64): Ninja reruns the
/// edge whose output's latest record has it.
constexpr uint64_t kNoCommandHash = 0;

/// The log's latest record of each of `outputs`, with kNoCommandHash.
std::string RecordsToRerun(std::string_view log, const std::vector<std::string>& outputs) {
  const LatestNinjaLogRecords latest = LatestRecordsOf(log);
  std::string records;
  for (const std::string& output : outputs) {
    auto record = latest.find(output);
    if (record == latest.end()) continue;  // no record: Ninja reruns the edge anyway
    NinjaLogRecord rerun = record->second;
    rerun.command_hash = kNoCommandHash;
    records += FormatNinjaLogRecord(rerun);
  }
  return records;
}

/// The reads log with the latest line of each output alone, once it holds
/// twice as many lines (steps append one a run).
void CompactReadsLog(const std::string& path, const std::string& text,
                     const std::map<std::string, int64_t>& started, WritableFileSystem& fs) {
  if (static_cast<size_t>(std::count(text.begin(), text.end(), '\n')) < 2 * started.size() + 64) return;
  std::string compact;
  for (const auto& [output, time] : started) compact += SourceReadLine(time, output);
  fs.Write(path, compact);
}

/// What ReadFilesPath's index was made from: the sizes and mtimes of the
/// deps log and the starts, which are appended to (or compacted), never
/// rewritten as they were.
std::string ReadLogsIdentity(const std::string& deps_path, const std::string& reads_path,
                             const WritableFileSystem& fs) {
  std::string identity = "made from";
  for (const std::string& path : {deps_path, reads_path}) {
    std::optional<std::filesystem::file_time_type> mtime = fs.MTime(path);
    identity += " " + std::to_string(fs.Size(path).value_or(0)) + " " +
                std::to_string(mtime ? mtime->time_since_epoch().count() : 0);
  }
  return identity + "\n";
}

/// The earliest start of a step in `started` that read each file (absolute)
/// as the deps log says.
std::map<std::string, int64_t> EarliestReads(const NinjaDepsLog& deps,
                                             const std::map<std::string, int64_t>& started,
                                             const std::string& ninja_dir) {
  std::map<int32_t, int64_t> earliest;
  for (const auto& [output, inputs] : deps.inputs_of) {
    auto start = started.find(deps.paths[output]);
    if (start == started.end()) continue;
    for (int32_t input : inputs) {
      auto [it, inserted] = earliest.emplace(input, start->second);
      if (!inserted) it->second = std::min(it->second, start->second);
    }
  }
  std::map<std::string, int64_t> by_path;
  for (const auto& [input, start] : earliest) by_path[ResolvePath(ninja_dir, deps.paths[input])] = start;
  return by_path;
}

}  // namespace

std::vector<std::string> StepsToReread(const NinjaDepsLog& deps,
                                       const std::map<std::string, int64_t>& started,
                                       const std::string& ninja_dir, const WritableFileSystem& fs) {
  std::vector<std::optional<int64_t>> changed(deps.paths.size());
  std::vector<bool> stated(deps.paths.size());
  auto changed_at = [&](int32_t id) {
    if (!stated[id]) {
      changed[id] = fs.ChangeTime(ResolvePath(ninja_dir, deps.paths[id]));
      stated[id] = true;
    }
    return changed[id];
  };
  std::vector<std::string> reread;
  for (const auto& [output, inputs] : deps.inputs_of) {
    auto start = started.find(deps.paths[output]);
    if (start == started.end()) continue;  // not a step's, or not one that reads the sources
    for (int32_t input : inputs) {
      std::optional<int64_t> time = changed_at(input);
      if (!time || *time >= start->second) {
        reread.push_back(deps.paths[output]);
        break;
      }
    }
  }
  return reread;
}

std::vector<std::string> RereadChangedSources(const std::string& dir, const std::string& ninja_dir,
                                              WritableFileSystem& fs) {
  const std::string reads_path = SourceReadsPath(dir);
  const std::string reads = fs.Read(reads_path).value_or("");
  if (reads.empty()) return {};
  const std::map<std::string, int64_t> started = ParseSourceReads(reads);
  CompactReadsLog(reads_path, reads, started, fs);
  const std::string log_path = GraphNinjaLogPath(dir, fs);
  std::vector<std::string> reread = StepsToReread(
      ParseNinjaDepsLog(fs.Read(NinjaDepsLogBeside(log_path)).value_or("")), started, ninja_dir, fs);
  if (reread.empty()) return {};
  const std::string log = fs.Read(log_path).value_or("");
  if (NinjaCommandHash(NinjaLogVersion(log), "")) {
    std::string records = RecordsToRerun(log, reread);
    if (!records.empty()) fs.Append(log_path, records);
  } else {
    // A log of a format FastCuda does not write: the outputs go instead,
    // and with them restat's skipping of what follows.
    for (const std::string& output : reread) fs.Remove(ResolvePath(ninja_dir, output));
  }
  return reread;
}

std::string IndexReadFiles(const std::string& dir, const std::string& ninja_dir, WritableFileSystem& fs) {
  const std::string reads_path = SourceReadsPath(dir);
  const std::string deps_path = NinjaDepsLogBeside(GraphNinjaLogPath(dir, fs));
  const std::string identity = ReadLogsIdentity(deps_path, reads_path, fs);
  std::string index = fs.Read(ReadFilesPath(dir)).value_or("");
  if (index.starts_with(identity)) return index.substr(identity.size());
  const std::map<std::string, int64_t> earliest =
      EarliestReads(ParseNinjaDepsLog(fs.Read(deps_path).value_or("")),
                    ParseSourceReads(fs.Read(reads_path).value_or("")), ninja_dir);
  std::string lines;
  for (const auto& [path, start] : earliest) lines += SourceReadLine(start, path);
  fs.Write(ReadFilesPath(dir), identity + lines);
  return lines;
}

std::optional<std::string> SourceChangedSinceRead(const std::string& dir, const std::string& ninja_dir,
                                                  WritableFileSystem& fs) {
  for (const auto& [path, start] : ParseSourceReads(IndexReadFiles(dir, ninja_dir, fs))) {
    std::optional<int64_t> changed = fs.ChangeTime(path);
    if (!changed || *changed >= start) return path;
  }
  return std::nullopt;
}

}  // namespace fastcuda

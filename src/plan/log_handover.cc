#include "src/plan/log_handover.h"

#include <algorithm>
#include <iterator>
#include <nlohmann/json.hpp>
#include <set>

#include "src/plan/first_phase_plan.h"
#include "src/plan/graph_dir.h"

namespace fastcuda {
namespace {

using nlohmann::json;

/// The log versions whose command hash FastCuda computes.
constexpr int kLogVersions[] = {5, 6, 7};

/// The latest record of every output of a log.
bool SameRecord(const NinjaLogRecord& a, const NinjaLogRecord& b) {
  return a.start_ms == b.start_ms && a.end_ms == b.end_ms && a.mtime == b.mtime && a.output == b.output &&
         a.command_hash == b.command_hash;
}

/// The handovers whose `which` record is still the latest of its output.
std::vector<Handover> WithLatest(const LatestNinjaLogRecords& latest, const std::vector<Handover>& handovers,
                                 NinjaLogRecord Handover::*which) {
  std::vector<Handover> still;
  std::copy_if(handovers.begin(), handovers.end(), std::back_inserter(still), [&](const Handover& handover) {
    auto found = latest.find((handover.*which).output);
    return found != latest.end() && SameRecord(found->second, handover.*which);
  });
  return still;
}

json RecordJson(const NinjaLogRecord& record) {
  return {record.start_ms, record.end_ms, record.mtime, record.output, record.command_hash};
}

NinjaLogRecord RecordOf(const json& value) {
  return {value.at(0).get<int64_t>(), value.at(1).get<int64_t>(), value.at(2).get<int64_t>(),
          value.at(3).get<std::string>(), value.at(4).get<uint64_t>()};
}

/// The handovers of HandoversPath's `text`.
std::vector<Handover> ParseHandovers(std::string_view text) {
  std::vector<Handover> handovers;
  json list = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (!list.is_array()) return handovers;  // unreadable: nothing is taken back, the steps rerun
  for (const json& pair : list) handovers.push_back({RecordOf(pair.at(0)), RecordOf(pair.at(1))});
  return handovers;
}

std::string Lines(const std::vector<NinjaLogRecord>& records) {
  std::string text;
  for (const NinjaLogRecord& record : records) text += FormatNinjaLogRecord(record);
  return text;
}

/// True if `record`, the object's latest, carries its step's command hash
/// (in log `version`): fastcuda ninja's step made it.
bool MadeByStep(const SharedObject& object, const NinjaLogRecord& record, int version) {
  auto step_hash = object.step_hash.find(version);
  return step_hash != object.step_hash.end() && record.command_hash == step_hash->second;
}

/// HandOver, for a log of `version` whose latest records are `latest`.
std::vector<Handover> HandOverFrom(const LatestNinjaLogRecords& latest, int version,
                                   const std::vector<SharedObject>& objects, const CurrentObjects& current,
                                   int64_t build_start) {
  std::vector<Handover> handovers;
  for (const SharedObject& object : objects) {
    auto record = latest.find(object.output);
    if (record == latest.end() || !MadeByStep(object, record->second, version) || !current(object)) continue;
    NinjaLogRecord generator = record->second;
    generator.command_hash = object.generator_hash.at(version);
    generator.mtime = build_start;
    handovers.push_back({record->second, generator});
  }
  return handovers;
}

}  // namespace

SharedObject HashSharedObject(std::string output, std::string_view generator_command,
                              std::string_view step_command) {
  SharedObject object{std::move(output), {}, {}, true, ""};
  for (int version : kLogVersions) {
    object.generator_hash[version] = *NinjaCommandHash(version, generator_command);
    object.step_hash[version] = *NinjaCommandHash(version, step_command);
  }
  return object;
}

std::vector<Handover> HandOver(std::string_view log, const std::vector<SharedObject>& objects,
                               const CurrentObjects& current, int64_t build_start) {
  return HandOverFrom(LatestRecordsOf(log), NinjaLogVersion(log), objects, current, build_start);
}

std::vector<Handover> TakeBack(std::string_view log, const std::vector<Handover>& handovers) {
  return WithLatest(LatestRecordsOf(log), handovers, &Handover::generator_record);
}

std::vector<std::string> MadeElsewhere(std::string_view log, const std::vector<SharedObject>& objects,
                                       const std::vector<Handover>& handovers) {
  const int version = NinjaLogVersion(log);
  LatestNinjaLogRecords latest = LatestRecordsOf(log);
  std::vector<std::string> elsewhere;
  for (const SharedObject& object : objects) {
    auto record = latest.find(object.output);
    if (record == latest.end()) continue;  // never built: a missing object's intermediates go anyway
    if (MadeByStep(object, record->second, version)) continue;
    bool handed_over = std::any_of(handovers.begin(), handovers.end(), [&](const Handover& handover) {
      return SameRecord(handover.generator_record, record->second);
    });
    if (!handed_over) elsewhere.push_back(object.output);
  }
  return elsewhere;
}

std::vector<std::string> ObjectsMadeElsewhere(const std::string& out_dir, const std::string& log_path,
                                              const std::vector<SharedObject>& objects,
                                              const FileSystem& fs) {
  std::optional<std::string> log = fs.Read(log_path);
  if (!log) return {};
  return MadeElsewhere(*log, objects, ParseHandovers(fs.Read(HandoversPath(out_dir)).value_or("[]")));
}

std::vector<SharedObject> LoadSharedObjects(const std::string& out_dir, const FileSystem& fs) {
  std::vector<SharedObject> objects;
  json list = json::parse(fs.Read(SharedObjectsPath(out_dir)).value_or("[]"), nullptr, false);
  if (!list.is_array()) return objects;
  for (const json& value : list) {
    SharedObject object;
    object.output = value.at("output");
    object.by_default = value.value("by_default", false);
    object.source = value.value("source", "");
    for (const auto& [version, hashes] : value.at("hashes").items()) {
      object.generator_hash[std::stoi(version)] = hashes.at(0);
      object.step_hash[std::stoi(version)] = hashes.at(1);
    }
    objects.push_back(std::move(object));
  }
  return objects;
}

void SaveSharedObjects(const std::vector<SharedObject>& objects, const std::string& out_dir,
                       WritableFileSystem& fs) {
  json list = json::array();
  for (const SharedObject& object : objects) {
    json hashes = json::object();
    for (const auto& [version, hash] : object.generator_hash) {
      hashes[std::to_string(version)] = {hash, object.step_hash.at(version)};
    }
    list.push_back({{"output", object.output},
                    {"by_default", object.by_default},
                    {"source", object.source},
                    {"hashes", hashes}});
  }
  fs.Write(SharedObjectsPath(out_dir), list.dump());
}

TakenBack TakeBackLog(const std::string& out_dir, const std::string& log_path,
                      const std::vector<SharedObject>& objects, WritableFileSystem& fs) {
  TakenBack taken;
  taken.handovers_text = fs.Read(HandoversPath(out_dir)).value_or("[]");
  std::vector<Handover> handovers = ParseHandovers(taken.handovers_text);
  if (handovers.empty()) return {};
  fs.Remove(HandoversPath(out_dir));
  std::optional<std::string> log = fs.Read(log_path);
  if (!log) return {};
  const LatestNinjaLogRecords latest = LatestRecordsOf(*log);
  taken.handovers = WithLatest(latest, handovers, &Handover::generator_record);
  std::set<std::string> outputs;
  std::vector<NinjaLogRecord> step_records;
  for (const Handover& handover : taken.handovers) {
    step_records.push_back(handover.step_record);
    outputs.insert(handover.step_record.output);
  }
  const int version = NinjaLogVersion(*log);
  taken.other_step_objects = std::any_of(objects.begin(), objects.end(), [&](const SharedObject& object) {
    auto record = latest.find(object.output);
    return record != latest.end() && MadeByStep(object, record->second, version) &&
           !outputs.contains(object.output);
  });
  const std::string appended = Lines(step_records);
  if (!appended.empty()) fs.Append(log_path, appended);
  taken.log_end = LogEnd(*log + appended);
  taken.log_before = std::move(*log);
  return taken;
}

bool PutBackLog(const std::string& out_dir, const std::string& ninja_dir, const std::string& log_path,
                const std::vector<SharedObject>& objects, const TakenBack& taken, WritableFileSystem& fs) {
  if (taken.handovers.empty() || taken.other_step_objects) return false;
  std::optional<std::string> log = fs.Read(log_path);
  if (!log) return false;
  // All of it where Ninja rewrote the log (recompacted): records of steps.
  const std::string since(TextSince(*log, taken.log_end));
  const std::string under_out_dir = out_dir + "/";
  for (const NinjaLogRecord& record : ParseNinjaLogRecords(since)) {
    if (ResolvePath(ninja_dir, record.output).starts_with(under_out_dir) ||
        std::any_of(objects.begin(), objects.end(),
                    [&](const SharedObject& object) { return object.output == record.output; })) {
      return false;
    }
  }
  // Remembered before the log changes, as HandOverLog does.
  fs.Write(HandoversPath(out_dir), taken.handovers_text);
  fs.Write(log_path, taken.log_before + since);
  return true;
}

std::vector<Handover> Untouched(std::string_view log, const std::vector<Handover>& taken_back) {
  return WithLatest(LatestRecordsOf(log), taken_back, &Handover::step_record);
}

int64_t BuildStart(const std::string& out_dir, WritableFileSystem& fs) {
  const std::string stamp = BuildStartPath(out_dir);
  fs.Write(stamp, "");
  std::optional<std::filesystem::file_time_type> mtime = fs.MTime(stamp);
  return mtime ? NinjaTimeStamp(*mtime) : 0;
}

void HandOverLog(const std::string& out_dir, const std::string& log_path, const CurrentObjects& built,
                 int64_t build_start, const std::vector<Handover>& taken_back, WritableFileSystem& fs) {
  std::optional<std::string> log = fs.Read(log_path);
  if (!log) return;
  const LatestNinjaLogRecords latest = LatestRecordsOf(*log);  // one parse of a log that may hold many builds
  std::vector<Handover> handovers =
      HandOverFrom(latest, NinjaLogVersion(*log), LoadSharedObjects(out_dir, fs), built, build_start);
  std::set<std::string> built_now;
  for (const Handover& handover : handovers) built_now.insert(handover.step_record.output);
  for (const Handover& before : WithLatest(latest, taken_back, &Handover::step_record)) {
    if (!built_now.contains(before.step_record.output)) handovers.push_back(before);
  }
  if (handovers.empty()) return;
  json list = json::array();
  std::vector<NinjaLogRecord> given;
  for (const Handover& handover : handovers) {
    list.push_back({RecordJson(handover.step_record), RecordJson(handover.generator_record)});
    given.push_back(handover.generator_record);
  }
  // Remembered before the log changes: a record handed over and forgotten
  // would make the next fastcuda ninja rerun its step, never use a stale one.
  fs.Write(HandoversPath(out_dir), list.dump());
  fs.Append(log_path, Lines(given));
}

}  // namespace fastcuda

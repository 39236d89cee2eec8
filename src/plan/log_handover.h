// One object, two commands: Ninja's log shared by plain `ninja` and
// `fastcuda ninja`. Plain ninja's edge makes an object with the generator's
// nvcc command, fastcuda ninja's with the last of its steps; Ninja reruns an
// edge whose log record carries another command's hash. After fastcuda ninja
// built its targets, each object they need is handed over to the generator's
// command (nvcc's object and the steps' are the same file); before the next,
// the records it handed over are taken back. An object that plain ninja
// built in between is not taken back: the steps make it again, from the
// sources (MadeElsewhere).
#pragma once

#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "src/base/file_system.h"
#include "src/base/ninja_log.h"

namespace fastcuda {

/// An object that the generator's nvcc edge and one of FastCuda's steps both write.
struct SharedObject {
  std::string output;                      ///< as Ninja names it
  std::map<int, uint64_t> generator_hash;  ///< the nvcc edge's command, by log version
  std::map<int, uint64_t> step_hash;       ///< the step's command, by log version
  bool by_default = true;                  ///< what Ninja builds by default needs it
  std::string source;  ///< the nvcc edge's source where it is the first edge that reads it (`SOURCE^`)
};

/// Both hashes of `object` for every log version FastCuda knows.
SharedObject HashSharedObject(std::string output, std::string_view generator_command,
                              std::string_view step_command);

/// A record that fastcuda ninja handed over: the step's, and what it appended.
struct Handover {
  NinjaLogRecord step_record;
  NinjaLogRecord generator_record;
};

/// Which shared objects a build left as their steps make them now.
using CurrentObjects = std::function<bool(const SharedObject&)>;

/// For every `current` object whose latest record in `log` carries its
/// step's hash: the same record with the generator's hash and, as its mtime,
/// `build_start`, when the build began (BuildStart): an input changed since,
/// even while the steps ran, is newer, and plain ninja rebuilds the object.
std::vector<Handover> HandOver(std::string_view log, const std::vector<SharedObject>& objects,
                               const CurrentObjects& current, int64_t build_start);

/// Stamps the start of a build in `out_dir` and returns it as the file system
/// stamps files (NinjaTimeStamp): as Ninja stamps its own records with its
/// commands' start, so that coarse or lagging file system clocks compare
/// alike. 0 where it cannot tell (an mtime every input is newer than).
int64_t BuildStart(const std::string& out_dir, WritableFileSystem& fs);

/// The handovers whose generator record is still the latest of its output
/// in `log`: those to take back (their step records).
std::vector<Handover> TakeBack(std::string_view log, const std::vector<Handover>& handovers);

/// The shared objects whose latest record in `log` another command wrote
/// (plain ninja's nvcc edge): neither the record that fastcuda ninja handed
/// over last (`handovers`) nor its step's. Its steps' intermediates, which
/// that command did not update, may predate the sources it compiled (a
/// source restored with an older mtime, a header that now shadows another):
/// they are to go, as a missing object's do.
std::vector<std::string> MadeElsewhere(std::string_view log, const std::vector<SharedObject>& objects,
                                       const std::vector<Handover>& handovers);

/// MadeElsewhere of the log at `log_path`, of the shared `objects`, with the
/// handovers remembered in `out_dir`.
std::vector<std::string> ObjectsMadeElsewhere(const std::string& out_dir, const std::string& log_path,
                                              const std::vector<SharedObject>& objects, const FileSystem& fs);

/// The shared objects of the rewrite in `out_dir` (written by SaveSharedObjects).
std::vector<SharedObject> LoadSharedObjects(const std::string& out_dir, const FileSystem& fs);
void SaveSharedObjects(const std::vector<SharedObject>& objects, const std::string& out_dir,
                       WritableFileSystem& fs);

/// What TakeBackLog took back, and what it needs to put the log back as it
/// was where the build after it runs no step (PutBackLog).
struct TakenBack {
  std::vector<Handover> handovers;  ///< those whose records it took back
  std::string log_before;           ///< the log before it appended their step records
  std::string log_end;              ///< LogEnd of the log it left
  std::string handovers_text;       ///< the handovers file, which it removed
  bool other_step_objects = false;  ///< an object not taken back whose latest record is its step's
};

/// Takes back the records that the last HandOverLog handed over in
/// `log_path`: the handovers of objects that plain ninja did not build since.
TakenBack TakeBackLog(const std::string& out_dir, const std::string& log_path,
                      const std::vector<SharedObject>& objects, WritableFileSystem& fs);

/// Puts back the log at `log_path` and the handovers as they were before
/// TakeBackLog (`taken`), with the records that the build appended since
/// after them, where that build ran no step: no record it appended is of a
/// file under `out_dir` or of an object of `objects` (outputs are named
/// from `ninja_dir`), and Ninja did not rewrite the log. HandOverLog would
/// then hand over the same objects again (but stamped with this build's
/// start: the older stamp makes plain ninja rebuild more, never less), and
/// the log would grow by two records an object in every build with nothing
/// to do. False, changing nothing, where the build ran a step, or an object
/// that `taken` did not take back has its step's record (HandOverLog hands
/// it over).
bool PutBackLog(const std::string& out_dir, const std::string& ninja_dir, const std::string& log_path,
                const std::vector<SharedObject>& objects, const TakenBack& taken, WritableFileSystem& fs);

/// The handovers of `taken_back` whose object's latest record in `log` is
/// still the step's record they took back: no step made the object since.
std::vector<Handover> Untouched(std::string_view log, const std::vector<Handover>& taken_back);

/// Hands shared objects' records in `log_path` over after a build that began
/// at `build_start` and ran to success, and remembers them in `out_dir`: the
/// `built` objects (HandOver: every object its targets need, which Ninja
/// left as their steps make them now), and the Untouched handovers of
/// `taken_back` as they were (no step wrote those objects: plain ninja's view
/// of them is what it was before the build, the command's hash included, so
/// a command changed since still rebuilds them). Only `built` objects get
/// the current command's hash: the last step's record alone would not tell
/// that an object is current (its other steps' commands: a device flag
/// changes cicc's, not the host compile's).
void HandOverLog(const std::string& out_dir, const std::string& log_path, const CurrentObjects& built,
                 int64_t build_start, const std::vector<Handover>& taken_back, WritableFileSystem& fs);

}  // namespace fastcuda

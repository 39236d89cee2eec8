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

/// MadeElsewhere of the log at `log_path`, with the shared objects and
/// handovers remembered in `out_dir`.
std::vector<std::string> ObjectsMadeElsewhere(const std::string& out_dir, const std::string& log_path,
                                              const FileSystem& fs);

/// The shared objects of the rewrite in `out_dir` (written by SaveSharedObjects).
std::vector<SharedObject> LoadSharedObjects(const std::string& out_dir, const FileSystem& fs);
void SaveSharedObjects(const std::vector<SharedObject>& objects, const std::string& out_dir,
                       WritableFileSystem& fs);

/// Takes back the records that the last HandOverLog handed over in
/// `log_path`; returns the handovers whose records it took back (those of
/// objects that plain ninja did not build since).
std::vector<Handover> TakeBackLog(const std::string& out_dir, const std::string& log_path,
                                  WritableFileSystem& fs);

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

// One object, two commands: Ninja's log shared by plain `ninja` and
// `fastcuda ninja`. Plain ninja's edge makes an object with the generator's
// nvcc command, fastcuda ninja's with the last of its steps; Ninja reruns an
// edge whose log record carries another command's hash. After fastcuda ninja
// built every default, each object the defaults need is handed over to the
// generator's command (nvcc's object and the steps' are the same file);
// before the next, the records it handed over are taken back. An object that
// plain ninja built in between is not taken back: the steps make it again,
// from the sources (MadeElsewhere).
#pragma once

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
  std::vector<std::string> steps;          ///< the outputs of the steps it is made from
  bool by_default = true;                  ///< what Ninja builds by default needs it
};

/// Both hashes of `object` for every log version FastCuda knows.
SharedObject HashSharedObject(std::string output, std::string_view generator_command,
                              std::string_view step_command, std::vector<std::string> steps);

/// A record that fastcuda ninja handed over: the step's, and what it appended.
struct Handover {
  NinjaLogRecord step_record;
  NinjaLogRecord generator_record;
};

/// For every object by default whose latest record in `log` carries its
/// step's hash: the same record with the generator's hash, and the earliest
/// mtime of the steps it is made from (an input changed while they ran is
/// newer than that).
std::vector<Handover> HandOver(std::string_view log, const std::vector<SharedObject>& objects);

/// The step records of the handovers whose generator record is still the
/// latest of its output in `log`.
std::vector<NinjaLogRecord> TakeBack(std::string_view log, const std::vector<Handover>& handovers);

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

/// Takes back the records that the last HandOverLog handed over in `log_path`.
void TakeBackLog(const std::string& out_dir, const std::string& log_path, WritableFileSystem& fs);
/// Hands the shared objects' records in `log_path` over, remembering them in
/// `out_dir`, after a build that ran every default to success
/// (`whole_build`); after any other none. Only such a build leaves every
/// object the defaults need as its steps make it now: the last step's record
/// does not tell its other steps' commands (a device flag changes cicc's, not
/// the host compile's), and a build of one target, a failed or a stopped one
/// leaves other objects older than their steps.
void HandOverLog(const std::string& out_dir, const std::string& log_path, bool whole_build,
                 WritableFileSystem& fs);

}  // namespace fastcuda

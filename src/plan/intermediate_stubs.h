// What `fastcuda step` leaves in place of a big intermediate once the one
// step that reads it has succeeded (StubbedIntermediates), and how a step
// gets the body back when it must read it again.
//
// A stub is an empty file, which takes no disk block, with the body's mtime
// and, in an extended attribute (kStubAttribute, kept in the inode), the
// body's hash and size: Ninja sees the file present and unchanged. A
// producer that runs again compares its new body with the stub (StandsFor):
// the same body keeps the stub and its mtime, so that restat skips the
// reader as it would for equal bytes. A reader that must run again while
// its input is a stub (its own flags changed, its output was removed) first
// runs the producer's step again, as the manifest Ninja runs names its
// command now (ProducerInManifest), so that it reads what nvcc would
// produce now from the current sources. Where the file system keeps no
// extended attributes the bodies stay whole.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "src/base/file_system.h"
#include "src/base/process.h"
#include "src/plan/step_protocol.h"

namespace fastcuda {

/// The variable that keeps every intermediate whole (any value but "" or
/// "0"): a user who wants to read what the steps wrote.
inline constexpr std::string_view kKeepIntermediatesVariable = "FASTCUDA_KEEP_INTERMEDIATES";

/// The extended attribute that makes an empty file a stub: "HASH SIZE".
inline constexpr std::string_view kStubAttribute = "user.fastcuda.stub";

/// What a stub records of the body it stands for.
struct IntermediateStub {
  std::string hash;  ///< ContentHashHex of the body
  uintmax_t size = 0;
};

/// The stub of `body`.
IntermediateStub StubOf(const std::string& body);

/// The stub that `path` is: an empty file with kStubAttribute; nullopt for a
/// body or no file.
std::optional<IntermediateStub> ReadStub(const WritableFileSystem& fs, const std::string& path);

/// The size of the body that `path` holds or, a stub, stands for; nullopt
/// where there is no such file. What a step wrote, for the views.
std::optional<uintmax_t> BodySize(const WritableFileSystem& fs, const std::string& path);

/// True where `stub` stands for `body`: its size and hash.
bool StandsFor(const IntermediateStub& stub, const std::string& body);

/// The step that writes a stubbed intermediate (absolute), as the manifest
/// names it now; nullopt where no step of the manifest writes it.
using ProducerLookup = std::function<std::optional<StepInvocation>(const std::string& path)>;

/// The step that writes `path` as the manifest that runs `consumer`
/// (StepInvocation::manifest) names it: `ninja -t commands -s PATH`
/// (`ninja` the Ninja program), run by `runner` where Ninja runs the steps.
/// A ProducerLookup.
std::optional<StepInvocation> ProducerInManifest(const StepInvocation& consumer, const std::string& path,
                                                 const std::string& ninja, CommandRunner& runner);

/// Runs a producer's step again from its recipe (RunStep).
using ProducerRunner = std::function<int(const StepInvocation&)>;

/// The stubbed inputs of `consumer` after RegenerateStubbedInputs: the
/// bodies that came out other than their stubs said.
struct Regenerated {
  int exit_code = 0;                 ///< a producer's, where one failed
  std::vector<std::string> changed;  ///< absolute
};

/// Before `consumer` runs its program: every stubbed input
/// (StepInvocation::stubbed_inputs) that is a stub gets its body back, from
/// its producer's step (`find`) run through `run` with restores_body set;
/// so does an empty one, a stub whose attribute a copy dropped, which
/// counts as changed (its hash is lost).
/// Throws std::runtime_error where no step writes it (the stub goes, so
/// that the next build runs the producer).
Regenerated RegenerateStubbedInputs(const StepInvocation& consumer, const ProducerLookup& find,
                                    const ProducerRunner& run, WritableFileSystem& fs);

/// After `consumer` succeeded: each stubbed input becomes a stub with the
/// body's mtime, where a reader can find its producer (the consumer names
/// its manifest), but for one in `changed`, which goes: a body that differs
/// from what the producer's step last wrote means a change that Ninja did
/// not see, and the producer's step must run again (its depfile, its other
/// outputs). `keep_whole`: kKeepIntermediatesVariable is set; bodies stay.
void StubConsumedInputs(const StepInvocation& consumer, const Regenerated& regenerated, bool keep_whole,
                        WritableFileSystem& fs);

/// After a step succeeded: the outputs that no step reads
/// (StepInvocation::stubbed_outputs) become empty, with their mtimes, unless
/// `keep_whole`. No hash: with no reader, no edge waits on their mtimes, and
/// an empty file takes no disk block where a stub takes one.
void StubUnreadOutputs(const StepInvocation& step, bool keep_whole, WritableFileSystem& fs);

}  // namespace fastcuda

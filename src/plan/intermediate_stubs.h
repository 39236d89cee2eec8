// What `fastcuda step` leaves in place of a big intermediate once the one
// step that reads it has succeeded (StubbedIntermediates), and how a step
// gets the body back when it must read it again.
//
// A stub holds the body's hash and size, and keeps the body's mtime: Ninja
// sees the file present and unchanged. A producer that runs again compares
// its new body with the stub (SameBody): the same body keeps the stub and its
// mtime, so that restat skips the reader as it would for equal bytes. A
// reader that must run again while its input is a stub (its own flags
// changed, its output was removed) first runs the producer's command, which
// the stub records, again, as the producer's step would, so that it reads
// what nvcc would produce now from the current sources.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "src/base/file_system.h"
#include "src/plan/step_protocol.h"

namespace fastcuda {

/// The variable that keeps every intermediate whole (any value but "" or
/// "0"): a user who wants to read what the steps wrote.
inline constexpr std::string_view kKeepIntermediatesVariable = "FASTCUDA_KEEP_INTERMEDIATES";

/// What a stub records of the body it stands for.
struct IntermediateStub {
  std::string hash;  ///< StableHashHex of the body, 16 digits
  uintmax_t size = 0;
  /// The producer's command (StepInvocation::Words, shell words) that
  /// writes the body again.
  std::string recipe;
};

/// The stub of `body`, which `recipe` writes.
IntermediateStub StubOf(const std::string& body, const std::string& recipe);

/// A stub's text: a few lines that say what the file is, then the recipe.
std::string FormatStub(const IntermediateStub& stub);

/// The stub that `text` is, or nullopt for a body (no stub).
std::optional<IntermediateStub> ParseStub(const std::string& text);

/// The size of the body that `path` holds or, a stub, stands for; nullopt
/// where there is no such file. What a step wrote, for the views.
std::optional<uintmax_t> BodySize(const WritableFileSystem& fs, const std::string& path);

/// True where `previous` (a body or a stub) stands for the body `now`.
bool SameBody(const std::string& previous, const std::string& now);

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
/// its producer's recipe run through `run` with restores_body set. Throws
/// std::runtime_error where the stub has no recipe (it goes, so that the
/// next build runs the producer).
Regenerated RegenerateStubbedInputs(const StepInvocation& consumer, const ProducerRunner& run,
                                    WritableFileSystem& fs);

/// After `consumer` succeeded: each stubbed input becomes a stub with the
/// body's mtime and the recipe beside it (which goes), but for one in
/// `changed`, which goes: a body that differs
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

/// After a producer succeeded: records its command for each output that
/// its reader stubs (StepInvocation::recipe_outputs): beside a body
/// (RecipePath), which its reader then folds into the stub; in a stub that
/// the body came out the same as (its mtime kept).
void WriteRecipes(const StepInvocation& producer, WritableFileSystem& fs);

}  // namespace fastcuda

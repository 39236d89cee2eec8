// Modes that give up nvcc's exact bytes for a shorter critical path: who
// makes the module id, and how many threads cicc and ptxas get.
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "src/base/build_load.h"

namespace fastcuda {

/// Who makes the module id that a TU's host stub and device code carry.
enum class ModuleIdMode {
  kNvcc,  ///< cudafe++ makes it, as in nvcc: cicc waits for cudafe++
  kOwn,   ///< a FastCuda step writes it first: cicc starts beside cudafe++
};

/// How many threads cicc and ptxas get (nvcc's --split-compile).
struct SplitCompile {
  enum class Mode {
    kOff,    ///< one thread, as nvcc
    kFixed,  ///< `threads` each (0: one per CPU, as nvcc means it)
    kAuto,   ///< the idle cores when the step starts, shared by the TU's arch chains
  };
  Mode mode = Mode::kOff;
  int threads = 0;  ///< kFixed only
};

/// What FASTCUDA_MODULE_ID, FASTCUDA_SPLIT_COMPILE and FASTCUDA_EARLY_HOST ask for.
struct CompileModes {
  ModuleIdMode module_id = ModuleIdMode::kNvcc;
  SplitCompile split_compile;
  bool early_host = false;  ///< the host compile does not wait for the device code (fatbin_embedding.h)
};

/// Reads FASTCUDA_MODULE_ID: "nvcc" (or empty) or "own". Throws
/// std::invalid_argument on anything else.
ModuleIdMode ParseModuleIdMode(std::string_view text);

/// Reads FASTCUDA_SPLIT_COMPILE: "off" (or empty), "auto" or a thread count.
/// Throws std::invalid_argument on anything else.
SplitCompile ParseSplitCompile(std::string_view text);

/// Reads FASTCUDA_EARLY_HOST: "off" (or empty) or "on". Throws
/// std::invalid_argument on anything else.
bool ParseEarlyHost(std::string_view text);

/// The modes FASTCUDA_MODULE_ID, FASTCUDA_SPLIT_COMPILE and FASTCUDA_EARLY_HOST
/// of `environment` ask for. Throws std::invalid_argument.
CompileModes CompileModesFrom(const std::map<std::string, std::string>& environment);

/// FastCuda's module id for the TU compiled from `source_path` into
/// `outputs`: nvcc's shape (`_HASH_LENGTH_NAME`), with a hash of both, so
/// that no two TUs of a build share one (nvcc's hashes the path alone).
std::string OwnModuleId(const std::string& source_path, const std::vector<std::string>& outputs);

/// The words that give cicc or ptxas `threads` threads; both take them
/// anywhere, after the input file too.
std::vector<std::string> SplitCompileFlag(int threads);

/// True if a cicc or ptxas command already says how many threads to use
/// (the user passed --split-compile to nvcc).
bool HasSplitCompileFlag(const std::vector<std::string>& argv);

/// Threads for a step in auto mode, when it starts: one while the build
/// runs a job in every slot; else twice the slots shared by the jobs that
/// split (rounded up, at most all slots), and shared at least by the `share`
/// arch chains of its TU (they start together and cannot see each other's
/// choice). The jobs that do not split count only while the build is full:
/// in the edit loop they are the chains' short first steps (cudafe++,
/// preprocessing), which a split step outlives. Twice, because a split
/// step's threads idle about half its run (its front end and code
/// generation are serial, its parts uneven): five chains of 8 threads on
/// 16 cores finish sooner than of 4 (bench/RESULTS.md).
int AutoSplitThreads(const BuildLoad& load, int share);

/// A cicc or ptxas command (argv[0] may be a launcher) with the threads of
/// auto mode added at its end, for a TU of `share` arch chains.
std::vector<std::string> WithAutoSplit(std::vector<std::string> argv, const BuildLoad& load, int share);

}  // namespace fastcuda

#include "src/nvcc/step.h"

#include <re2/re2.h>

#include <algorithm>
#include <filesystem>

namespace fastcuda {
namespace {

std::string ProgramName(const std::vector<std::string>& argv) {
  return std::filesystem::path(argv.front()).filename().string();
}

/// The virtual architecture a preprocess step targets, from the
/// `-D__CUDA_ARCH__=NNN` that nvcc passes (900 -> "compute_90").
std::string PreprocessArch(const std::vector<std::string>& argv) {
  static const RE2 arch_define(R"re(-D__CUDA_ARCH__=(\d+)\d)re", RE2::Latin1);
  std::string digits;
  for (const std::string& word : argv) {
    if (RE2::FullMatch(word, arch_define, &digits)) return "compute_" + digits;
  }
  return "";
}

/// Host compilers nvcc may drive (-ccbin can name any of these, with a
/// target prefix or version suffix).
bool LooksLikeHostCompiler(const std::string& program) {
  static const RE2 compiler(
      R"re((?:.*-)?(?:gcc|g\+\+|cc|c\+\+|clang|clang\+\+|icx|icpx|nvc\+\+)(?:-[0-9.]+)?)re", RE2::Latin1);
  return RE2::FullMatch(program, compiler);
}

/// Types a host compiler command by its mode flag and output suffix.
StepKind HostCompilerKind(const std::vector<std::string>& argv, const std::vector<std::string>& outputs) {
  if (HasFlag(argv, "-E")) {
    bool device = std::any_of(outputs.begin(), outputs.end(),
                              [](const std::string& o) { return o.ends_with(".cpp1.ii"); });
    return device || !PreprocessArch(argv).empty() ? StepKind::kDevicePreprocess : StepKind::kHostPreprocess;
  }
  if (HasFlag(argv, "-c")) return StepKind::kHostCompile;
  return StepKind::kHostLink;
}

std::vector<std::string> Concat(std::vector<std::string> a, const std::vector<std::string>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

/// cudafe++ and cicc write the module id file only when told to generate it;
/// otherwise they read it.
std::vector<std::string> ModuleIdOutputs(const std::vector<std::string>& argv) {
  if (!HasFlag(argv, "--gen_module_id_file")) return {};
  return FlagValues(argv, {"--module_id_file_name"});
}

}  // namespace

std::optional<StepKind> StepKindNamed(std::string_view name) {
  for (StepKind kind : kAllKinds) {
    if (StepKindName(kind) == name) return kind;
  }
  return std::nullopt;
}

std::string_view StepKindName(StepKind kind) {
  switch (kind) {
    case StepKind::kHostPreprocess:
      return "CPP_HOST";
    case StepKind::kDevicePreprocess:
      return "CPP_DEVICE";
    case StepKind::kCudafe:
      return "CUDAFE";
    case StepKind::kCicc:
      return "CICC";
    case StepKind::kPtxas:
      return "PTXAS";
    case StepKind::kFatbinary:
      return "FATBINARY";
    case StepKind::kFatbinStitch:
      return "FATBIN_STITCH";
    case StepKind::kNvlink:
      return "NVLINK";
    case StepKind::kHostCompile:
      return "HOST_CC";
    case StepKind::kHostLink:
      return "HOST_LINK";
    case StepKind::kRemove:
      return "RM";
    case StepKind::kFilterDependencies:
      return "DEPFILE";
    case StepKind::kModuleId:
      return "MODULE_ID";
    case StepKind::kFatbinPlaceholder:
      return "FATBIN_PLACEHOLDER";
    case StepKind::kEmbedFatbin:
      return "EMBED_FATBIN";
    case StepKind::kCacheLookup:
      return "CACHE_LOOKUP";
    case StepKind::kUnknown:
      return "STEP";
  }
  return "STEP";
}

bool IsPreprocess(StepKind kind) {
  return kind == StepKind::kHostPreprocess || kind == StepKind::kDevicePreprocess;
}

bool ReadsSources(StepKind kind) { return IsPreprocess(kind) || kind == StepKind::kCacheLookup; }

bool RunByFastcuda(StepKind kind) {
  return kind == StepKind::kFilterDependencies || kind == StepKind::kModuleId ||
         kind == StepKind::kFatbinPlaceholder;
}

std::vector<std::string> FlagValues(const std::vector<std::string>& argv,
                                    std::initializer_list<std::string_view> names) {
  std::vector<std::string> values;
  for (size_t i = 1; i < argv.size(); ++i) {
    for (std::string_view name : names) {
      std::string_view word = argv[i];
      if (word == name && i + 1 < argv.size()) {
        values.push_back(argv[++i]);
        break;
      }
      if (word.size() > name.size() && word.substr(0, name.size()) == name && word[name.size()] == '=') {
        values.emplace_back(word.substr(name.size() + 1));
        break;
      }
    }
  }
  return values;
}

bool HasFlag(const std::vector<std::string>& argv, std::string_view flag) {
  return std::find(argv.begin() + (argv.empty() ? 0 : 1), argv.end(), flag) != argv.end();
}

Step ClassifyCommand(const TranscriptCommand& command) {
  Step step;
  if (command.kind == TranscriptCommand::Kind::kFilterDependencies) {
    step.kind = StepKind::kFilterDependencies;
    step.outputs = {command.depfile};
    return step;
  }
  step.argv = command.argv;
  step.redirections = command.redirections;
  const std::vector<std::string>& argv = step.argv;
  const std::string program = ProgramName(argv);
  if (program == "rm") {
    step.kind = StepKind::kRemove;
  } else if (program == "cudafe++") {
    step.kind = StepKind::kCudafe;
    step.outputs = Concat(FlagValues(argv, {"--gen_c_file_name"}), ModuleIdOutputs(argv));
  } else if (program == "cicc") {
    step.kind = StepKind::kCicc;
    std::vector<std::string> arch = FlagValues(argv, {"-arch"});
    step.arch = arch.empty() ? "" : arch.back();
    step.outputs =
        Concat(FlagValues(argv, {"-o", "--gen_c_file_name", "--stub_file_name", "--gen_device_file_name"}),
               ModuleIdOutputs(argv));
  } else if (program == "ptxas") {
    step.kind = StepKind::kPtxas;
    std::vector<std::string> arch = FlagValues(argv, {"-arch", "--gpu-name"});
    step.arch = arch.empty() ? "" : arch.back();
    step.outputs = FlagValues(argv, {"-o", "--output-file"});
  } else if (program == "fatbinary") {
    step.kind = StepKind::kFatbinary;
    step.outputs = FlagValues(argv, {"--embedded-fatbin", "--create", "-o"});
  } else if (program == "nvlink") {
    step.kind = StepKind::kNvlink;
    std::vector<std::string> arch = FlagValues(argv, {"--arch", "-arch"});
    step.arch = arch.empty() ? "" : arch.back();
    step.outputs = FlagValues(argv, {"-o", "--register-link-binaries"});
  } else {
    step.outputs = FlagValues(argv, {"-o"});
    bool compiler_mode = HasFlag(argv, "-E") || HasFlag(argv, "-c");
    step.kind = compiler_mode || LooksLikeHostCompiler(program) ? HostCompilerKind(argv, step.outputs)
                                                                : StepKind::kUnknown;
    if (IsPreprocess(step.kind)) step.arch = PreprocessArch(argv);
  }
  return step;
}

}  // namespace fastcuda

#include "src/nvcc/nvcc_options.h"

#include <algorithm>
#include <filesystem>
#include <set>
#include <string_view>

#include "src/base/shell_words.h"
#include "src/base/toolchain_environment.h"
#include "src/nvcc/step.h"

namespace fastcuda {
namespace {

/// An nvcc option by both its names.
struct Option {
  std::string_view short_name;
  std::string_view long_name;
  bool Is(std::string_view name) const { return name == short_name || name == long_name; }
};

/// nvcc's depfile options: the only place that spells them.
constexpr Option kDepfileWithSystemHeaders{"-MD", "--generate-dependencies-with-compile"};
constexpr Option kDepfileWithoutSystemHeaders{"-MMD", "--generate-nonsystem-dependencies-with-compile"};
constexpr Option kDepfileOutput{"-MF", "--dependency-output"};
constexpr Option kDepfileTarget{"-MT", "--dependency-target-name"};
constexpr Option kDepfilePhonyTargets{"-MP", "--generate-dependency-targets"};
constexpr Option kCompilerBindir{"-ccbin", "--compiler-bindir"};

/// nvcc options whose value may follow as the next word. Knowing them keeps
/// a value such as `-Xcompiler -E` from being read as an option.
const std::set<std::string_view>& OptionsWithValue() {
  static const std::set<std::string_view> options = {"-o",
                                                     "--output-file",
                                                     "-x",
                                                     "--x",
                                                     "-std",
                                                     "--std",
                                                     "-I",
                                                     "--include-path",
                                                     "-isystem",
                                                     "--system-include",
                                                     "-D",
                                                     "--define-macro",
                                                     "-U",
                                                     "--undefine-macro",
                                                     "-include",
                                                     "--pre-include",
                                                     "-L",
                                                     "--library-path",
                                                     "-l",
                                                     "--library",
                                                     "-ccbin",
                                                     "--compiler-bindir",
                                                     "-Xcompiler",
                                                     "--compiler-options",
                                                     "-Xlinker",
                                                     "--linker-options",
                                                     "-Xarchive",
                                                     "--archive-options",
                                                     "-Xptxas",
                                                     "--ptxas-options",
                                                     "-Xnvlink",
                                                     "--nvlink-options",
                                                     "-Xfatbin",
                                                     "--fatbin-options",
                                                     "-Xcudafe",
                                                     "-Xcicc",
                                                     "-arch",
                                                     "--gpu-architecture",
                                                     "-code",
                                                     "--gpu-code",
                                                     "-gencode",
                                                     "--generate-code",
                                                     "-maxrregcount",
                                                     "--maxrregcount",
                                                     "-t",
                                                     "--threads",
                                                     "-MF",
                                                     "--dependency-output",
                                                     "-MT",
                                                     "--dependency-target-name",
                                                     "-odir",
                                                     "--output-directory",
                                                     "-optf",
                                                     "--options-file",
                                                     "-rdc",
                                                     "--relocatable-device-code",
                                                     "-ftz",
                                                     "--ftz",
                                                     "-prec-div",
                                                     "--prec-div",
                                                     "-prec-sqrt",
                                                     "--prec-sqrt",
                                                     "-fmad",
                                                     "--fmad",
                                                     "-Werror",
                                                     "--Werror",
                                                     "-diag-suppress",
                                                     "--diag-suppress",
                                                     "-diag-warn",
                                                     "--diag-warn",
                                                     "-diag-error",
                                                     "--diag-error",
                                                     "-keep-dir",
                                                     "--keep-dir",
                                                     "-split-compile",
                                                     "--split-compile",
                                                     "-time",
                                                     "--time",
                                                     "-cudart",
                                                     "--cudart",
                                                     "-cudadevrt",
                                                     "--cudadevrt",
                                                     "-m",
                                                     "--machine",
                                                     "-default-stream",
                                                     "--default-stream",
                                                     "-ldir",
                                                     "--libdevice-directory",
                                                     "-dopt",
                                                     "--dopt",
                                                     "-jump-table-density",
                                                     "-split-compile-extended",
                                                     "--run-args",
                                                     "-fdevice-time-trace",
                                                     "--fdevice-time-trace",
                                                     "--static-global-template-stub",
                                                     "-static-global-template-stub"};
  return options;
}

/// Options after which nvcc does something FastCuda leaves to nvcc. The
/// timing reports (--time, -fdevice-time-trace) time nvcc's own run of the
/// sub-steps, and --objdir-as-tempdir names the temporaries as outputs: none
/// of them shows in the dryrun.
const std::set<std::string_view>& FallbackOptions() {
  static const std::set<std::string_view> options = {"-E",
                                                     "--preprocess",
                                                     "-M",
                                                     "--generate-dependencies",
                                                     "-MM",
                                                     "--generate-nonsystem-dependencies",
                                                     "-V",
                                                     "--version",
                                                     "-h",
                                                     "--help",
                                                     "-lib",
                                                     "--lib",
                                                     "-link",
                                                     "--link",
                                                     "-run",
                                                     "--run",
                                                     "-dryrun",
                                                     "--dryrun",
                                                     "-keep",
                                                     "--keep",
                                                     "-save-temps",
                                                     "--save-temps",
                                                     "-v",
                                                     "--verbose",
                                                     "--list-gpu-arch",
                                                     "-arch-ls",
                                                     "--list-gpu-code",
                                                     "-code-ls",
                                                     "-optix-ir",
                                                     "--optix-ir",
                                                     "-lto-ir",
                                                     "-time",
                                                     "--time",
                                                     "-fdevice-time-trace",
                                                     "--fdevice-time-trace",
                                                     "-objtemp",
                                                     "--objdir-as-tempdir"};
  return options;
}

/// Options that make nvcc stop at an object, PTX, cubin or fatbin: the modes
/// FastCuda splits.
const std::set<std::string_view>& CompileOptions() {
  static const std::set<std::string_view> options = {
      "-c",    "--compile", "-dc",     "--device-c", "-dw",      "--device-w", "-ptx",
      "--ptx", "-cubin",    "--cubin", "-fatbin",    "--fatbin", "-dlink",     "--device-link"};
  return options;
}

/// The option name of `-name=value` / `--name=value`, or the word itself.
std::string_view OptionName(std::string_view word) {
  size_t eq = word.find('=');
  return word.substr(0, eq);
}

/// Calls `visit(word, name, value)` for each option and input of `args`,
/// the value attached with `=` or the next word: a value is never read as an
/// option or an input.
template <typename Visit>
void ForEachOption(const std::vector<std::string>& args, Visit visit) {
  for (size_t i = 0; i < args.size(); ++i) {
    std::string_view word = args[i];
    std::string_view name = OptionName(word);
    std::string_view value;
    if (name.size() < word.size()) {
      value = word.substr(name.size() + 1);
    } else if (OptionsWithValue().count(word) && i + 1 < args.size()) {
      value = args[++i];
    }
    visit(word, name, value);
  }
}

/// The extension nvcc gives the output it names after the source, by mode,
/// in the order nvcc prefers them when several are given (it stops at the
/// earliest phase).
const std::vector<std::pair<std::set<std::string_view>, std::string_view>>& SourceNamedOutputs() {
  static const std::vector<std::pair<std::set<std::string_view>, std::string_view>> modes = {
      {{"-optix-ir", "--optix-ir"}, ".optixir"},
      {{"-ptx", "--ptx"}, ".ptx"},
      {{"-cubin", "--cubin"}, ".cubin"},
      {{"-fatbin", "--fatbin"}, ".fatbin"},
      {{"-c", "--compile", "-dc", "--device-c", "-dw", "--device-w"}, ".o"}};
  return modes;
}

std::vector<std::string> ReadResponseFile(const std::string& path, const std::string& cwd,
                                          const FileSystem& fs) {
  std::optional<std::string> text = fs.Read(ResolvePath(cwd, path));
  if (!text) return {};  // nvcc reports the missing file itself
  return SplitShellWords(*text);
}

/// The response file that `args[i]` names (`@FILE`, `-optf FILE`,
/// `--options-file=FILE`...), moving `i` past a separate value; nullopt for
/// any other word.
std::optional<std::string> ResponseFileAt(const std::vector<std::string>& args, size_t& i) {
  const std::string& word = args[i];
  if (word.size() > 1 && word[0] == '@') return word.substr(1);
  if ((word == "-optf" || word == "--options-file") && i + 1 < args.size()) return args[++i];
  if (OptionName(word) == "-optf" || OptionName(word) == "--options-file") {
    return word.substr(word.find('=') + 1);
  }
  return std::nullopt;
}

}  // namespace

std::vector<std::string> EffectiveNvccArgs(const std::vector<std::string>& args,
                                           const std::string& prepend_flags, const std::string& append_flags,
                                           const std::string& cwd, const FileSystem& fs) {
  std::vector<std::string> effective = SplitShellWords(prepend_flags);
  for (size_t i = 0; i < args.size(); ++i) {
    if (std::optional<std::string> file = ResponseFileAt(args, i)) {
      std::vector<std::string> expanded = ReadResponseFile(*file, cwd, fs);
      effective.insert(effective.end(), expanded.begin(), expanded.end());
    } else {
      effective.push_back(args[i]);
    }
  }
  std::vector<std::string> appended = SplitShellWords(append_flags);
  effective.insert(effective.end(), appended.begin(), appended.end());
  return effective;
}

std::vector<std::string> ResponseFiles(const std::vector<std::string>& args, const std::string& cwd) {
  std::vector<std::string> files;
  for (size_t i = 0; i < args.size(); ++i) {
    if (std::optional<std::string> file = ResponseFileAt(args, i)) files.push_back(ResolvePath(cwd, *file));
  }
  return files;
}

std::vector<std::string> EffectiveNvccArgsIn(const std::vector<std::string>& args,
                                             const std::map<std::string, std::string>& environment,
                                             const std::string& cwd, const FileSystem& fs) {
  return EffectiveNvccArgs(args, EnvironmentValue(environment, "NVCC_PREPEND_FLAGS"),
                           EnvironmentValue(environment, "NVCC_APPEND_FLAGS"), cwd, fs);
}

std::vector<std::string> NvccInputWords(const std::vector<std::string>& args) {
  std::vector<std::string> inputs;
  ForEachOption(args, [&](std::string_view word, std::string_view, std::string_view value) {
    if (!word.starts_with('-') && value.empty()) inputs.emplace_back(word);
  });
  return inputs;
}

WholeNvccDepfile WholeNvccDepfileOf(const std::vector<std::string>& args) {
  static const std::set<std::string_view> refuses = {"-E",     "--preprocess",
                                                     "-M",     "--generate-dependencies",
                                                     "-MM",    "--generate-nonsystem-dependencies",
                                                     "-link",  "--link",
                                                     "-run",   "--run",
                                                     "-dlink", "--device-link"};
  bool compiling = false, refused = false, users = false;
  std::string users_file;
  ForEachOption(args, [&](std::string_view word, std::string_view name, std::string_view value) {
    compiling = compiling || CompileOptions().count(name) || name == "-lib" || name == "--lib";
    refused = refused || word == "-" || refuses.count(name);
    users = users || kDepfileWithSystemHeaders.Is(word) || kDepfileWithoutSystemHeaders.Is(word);
    if (kDepfileOutput.Is(name)) users_file = value;
  });
  if (!compiling || refused || NvccInputWords(args).size() != 1) return {};
  if (!users) return {WholeNvccDepfile::Source::kAsked, ""};
  if (users_file.empty()) return {};
  return {WholeNvccDepfile::Source::kUsers, users_file};
}

NvccInvocation ScanNvccArgs(const std::vector<std::string>& args) {
  NvccInvocation invocation;
  bool compile_mode = false;
  ForEachOption(args, [&](std::string_view word, std::string_view name, std::string_view value) {
    if (FallbackOptions().count(name)) {
      invocation.fallback_reason = "nvcc option " + std::string(name);
    } else if (word == "-") {
      // nvcc --dryrun would read the source and leave nothing for the run.
      invocation.fallback_reason = "the source is standard input (-)";
    } else if (CompileOptions().count(word)) {
      compile_mode = true;
    } else if (kDepfileWithoutSystemHeaders.Is(word)) {
      invocation.depfile.system_headers = false;
    } else if (kDepfileWithSystemHeaders.Is(word)) {
      invocation.depfile.system_headers = true;
    } else if (kDepfilePhonyTargets.Is(word)) {
      invocation.depfile.phony_targets = true;
    } else if (kDepfileTarget.Is(name)) {
      invocation.depfile.target = std::string(value);
    } else if (kCompilerBindir.Is(name)) {
      invocation.compiler_bindir = std::string(value);
    }
  });
  if (!compile_mode && !invocation.fallback_reason) {
    invocation.fallback_reason = "no -c, -dc, -ptx, -cubin, -fatbin or -dlink: nvcc links";
  }
  return invocation;
}

std::optional<std::string> RequestedDepfile(const std::vector<std::string>& command,
                                            const std::string& output) {
  std::vector<std::string> named = FlagValues(command, {kDepfileOutput.short_name, kDepfileOutput.long_name});
  if (!named.empty()) return named.back();
  for (const Option& option : {kDepfileWithSystemHeaders, kDepfileWithoutSystemHeaders}) {
    if (HasFlag(command, option.short_name) || HasFlag(command, option.long_name)) {
      return std::filesystem::path(output).replace_extension(".d").string();
    }
  }
  return std::nullopt;
}

std::vector<std::string> WithoutDepfileOptions(const std::vector<std::string>& args) {
  std::vector<std::string> kept;
  for (size_t i = 0; i < args.size(); ++i) {
    std::string_view word = args[i];
    std::string_view name = OptionName(word);
    bool with_value = kDepfileOutput.Is(name) || kDepfileTarget.Is(name);
    if (with_value || kDepfileWithSystemHeaders.Is(word) || kDepfileWithoutSystemHeaders.Is(word)) {
      if (with_value && name == word) ++i;  // the value is the next word
      continue;
    }
    kept.push_back(args[i]);
  }
  return kept;
}

std::string DefaultNvccOutput(const std::vector<std::string>& args, const std::string& source) {
  if (source.empty() || source == "-") return "";
  std::set<std::string_view> options;
  std::string directory;
  ForEachOption(args, [&](std::string_view, std::string_view name, std::string_view value) {
    options.insert(name);
    if (name == "-odir" || name == "--output-directory") directory = value;
  });
  auto given = [&](const std::set<std::string_view>& names) {
    return std::any_of(names.begin(), names.end(),
                       [&](std::string_view name) { return options.count(name) > 0; });
  };
  std::string name = given({"-dlink", "--device-link"}) ? "a_dlink.o" : "a.out";
  for (const auto& [modes, extension] : SourceNamedOutputs()) {
    if (given(modes)) {
      name = std::filesystem::path(source).stem().string() + std::string(extension);
      break;
    }
  }
  return directory.empty() ? name : (std::filesystem::path(directory) / name).string();
}

}  // namespace fastcuda

#include "src/graph/early_host.h"

#include <algorithm>
#include <filesystem>
#include <string_view>

namespace fastcuda {
namespace {

/// True if a host compiler option would make the early host compile differ
/// from nvcc's: `-r` cannot join LTO or save-temps objects, and the others
/// name files after the object (coverage notes and data, profiles, split
/// DWARF, stack usage, call graphs, dumps, its own depfile), which would
/// then take the early object's name and directory.
bool NeedsHostCompileInPlace(std::string_view word) {
  static constexpr std::string_view kPrefixes[] = {"-flto",         "-save-temps",      "-fprofile-",
                                                   "-gsplit-dwarf", "-fcallgraph-info", "-fdump-"};
  static constexpr std::string_view kWords[] = {"--coverage", "-ftest-coverage", "-fstack-usage", "-MD",
                                                "-MMD"};
  return std::any_of(std::begin(kPrefixes), std::end(kPrefixes),
                     [&](std::string_view prefix) { return word.starts_with(prefix); }) ||
         std::find(std::begin(kWords), std::end(kWords), word) != std::end(kWords);
}

/// The one step of `kind` in `steps`, or null when there is none or several.
const Step* OnlyStep(const std::vector<Step>& steps, StepKind kind) {
  const Step* found = nullptr;
  for (const Step& step : steps) {
    if (step.kind != kind) continue;
    if (found) return nullptr;
    found = &step;
  }
  return found;
}

}  // namespace

bool NamesFile(const std::string& name, const std::string& path) {
  return name == path || name == std::filesystem::path(path).filename();
}

std::optional<EarlyHost> EarlyHost::Plan(const std::vector<Step>& steps) {
  const Step* fatbinary = OnlyStep(steps, StepKind::kFatbinary);
  const Step* host_compile = OnlyStep(steps, StepKind::kHostCompile);
  if (!fatbinary || !host_compile) return std::nullopt;
  std::vector<std::string> fatbin_c = FlagValues(fatbinary->argv, {"--embedded-fatbin"});
  const std::vector<std::string>& host = host_compile->argv;
  bool in_place = std::any_of(host.begin(), host.end(), NeedsHostCompileInPlace);
  // CreateFatbin rewrites the flag's one word.
  bool names_one_word =
      fatbin_c.size() == 1 && HasFlag(fatbinary->argv, std::string(kEmbeddedFatbinFlag) + fatbin_c[0]);
  if (!names_one_word || !fatbin_c[0].ends_with(".fatbin.c") || !HasFlag(host, "-c") ||
      FlagValues(host, {"-o"}).size() != 1 || in_place) {
    return std::nullopt;
  }
  // The device link's host compile reads its fatbin.c through a macro, not
  // through a stub whose include cudafe++ and cicc name: it stays as it is.
  bool stub_includes_it = std::any_of(steps.begin(), steps.end(), [&](const Step& step) {
    std::vector<std::string> names = FlagValues(step.argv, {"--include_file_name"});
    return !names.empty() && NamesFile(names[0], fatbin_c[0]);
  });
  if (!stub_includes_it) return std::nullopt;
  EarlyHost plan;
  plan.real_fatbin_c_ = fatbin_c[0];
  plan.fatbin_bytes_ = fatbin_c[0].substr(0, fatbin_c[0].size() - 2);  // nvcc's name for a binary fatbin
  plan.layout_ = HasFlag(fatbinary->argv, "--device-c") ? FatbinLayout::kRelocatable : FatbinLayout::kWhole;
  plan.early_stem_ =
      fatbin_c[0].substr(0, fatbin_c[0].size() - std::string_view(".fatbin.c").size()) + ".early";
  return plan;
}

GraphStep EarlyHost::PlaceholderStep() const {
  GraphStep placeholder;
  placeholder.kind = StepKind::kFatbinPlaceholder;
  placeholder.fatbin.layout = layout_;
  placeholder.outputs = {early_stem_ + ".fatbin.c"};
  return placeholder;
}

void EarlyHost::RenameStubInclude(std::vector<std::string>& argv) const {
  std::string placeholder = early_stem_ + ".fatbin.c";
  for (size_t i = 0; i + 1 < argv.size(); ++i) {
    std::string& name = argv[i + 1];
    if (argv[i] != "--include_file_name" || !NamesFile(name, real_fatbin_c_)) continue;
    name = name == real_fatbin_c_ ? placeholder : std::filesystem::path(placeholder).filename().string();
  }
}

std::vector<GraphStep> EarlyHost::Rewrite(GraphStep step) const {
  RenameStubInclude(step.argv);
  if (step.kind == StepKind::kCudafe) {
    // The host compile no longer reads the fatbin: a device edit need not rerun it.
    std::vector<std::string> host_source = FlagValues(step.argv, {"--gen_c_file_name"});
    if (host_source.size() == 1) step.host_source = host_source.front();
  }
  if (step.kind == StepKind::kFatbinary) {
    step.fatbin.fatbin_bytes = fatbin_bytes_;
    step.fatbin.layout = layout_;
    step.outputs.push_back(fatbin_bytes_);
  }
  if (step.kind != StepKind::kHostCompile) return {std::move(step)};
  GraphStep embed;
  embed.kind = StepKind::kEmbedFatbin;
  embed.argv = step.argv;  // it compiles the host code again if the fatbin.c is not as expected
  embed.outputs = step.outputs;
  embed.fatbin = {early_stem_ + ".o", real_fatbin_c_, fatbin_bytes_, layout_};
  embed.inputs = {embed.fatbin.early_object, real_fatbin_c_, fatbin_bytes_};
  std::string object = FlagValues(step.argv, {"-o"}).front();
  std::replace(step.argv.begin(), step.argv.end(), object, embed.fatbin.early_object);
  std::replace(step.outputs.begin(), step.outputs.end(), object, embed.fatbin.early_object);
  return {std::move(step), std::move(embed)};
}

}  // namespace fastcuda

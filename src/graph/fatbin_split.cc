#include "src/graph/fatbin_split.h"

#include <re2/re2.h>

#include <algorithm>
#include <filesystem>
#include <set>

#include "src/graph/fatbin_embedding.h"

namespace fastcuda {
namespace {

/// The options nvcc passes fatbinary (or -Xfatbin does) in the shapes the
/// integration test proves identical when split: the word, or its part up
/// to and with `=`.
bool ProvedOption(const std::string& word) {
  static const RE2 proved(R"re(-64|-g|--device-c|-compress-all|-compress=false|)re"
                          R"re(--compress-mode=(?:default|none|speed|size|balance)|)re"
                          R"re(--cicc-cmdline=.*|--cmdline=.*|--ident=.*)re",
                          RE2::Latin1);
  return RE2::FullMatch(word, proved);
}

/// An image of the command: `--image3=kind=KIND,sm=NN,file=PATH`, NN with
/// the `a` or `f` of arch-specific and family targets (a
/// path with a comma is no image: fatbinary would not read it so either).
struct Image {
  std::string word;
  std::string arch;
  std::string file;
};

/// The image `word` names, if it is one of a kind the split is proved for.
std::optional<Image> ImageOf(const std::string& word) {
  static const RE2 image(R"re(--image3=kind=(?:elf|ptx|nvvm),sm=(\d+[af]?),file=([^,]+))re", RE2::Latin1);
  Image found{word, "", ""};
  if (!RE2::FullMatch(word, image, &found.arch, &found.file)) return std::nullopt;
  return found;
}

}  // namespace

bool CompressesOneImage(const Step& step) {
  return step.kind == StepKind::kFatbinary && step.outputs.size() == 1 &&
         step.outputs.front().ends_with(kImageFatbinSuffix);
}

std::vector<GraphStep> SplitFatbinary(GraphStep step) {
  if (step.kind != StepKind::kFatbinary || step.argv.empty() ||
      std::filesystem::path(step.argv.front()).filename() != "fatbinary") {
    return {std::move(step)};
  }
  std::vector<std::string> common = {step.argv.front()};
  std::vector<Image> images;
  std::set<std::string> archs, files;
  size_t embedded = 0;
  for (size_t i = 1; i < step.argv.size(); ++i) {
    const std::string& word = step.argv[i];
    if (std::optional<Image> image = ImageOf(word)) {
      archs.insert(image->arch);
      if (!files.insert(image->file).second) return {std::move(step)};  // one fatbin per file
      images.push_back(*image);
    } else if (word.starts_with(kEmbeddedFatbinFlag)) {
      ++embedded;
    } else if (ProvedOption(word)) {
      common.push_back(word);
    } else {
      return {std::move(step)};
    }
  }
  // One architecture: its images come out of one chain; nothing to gain.
  if (embedded != 1 || archs.size() < 2) return {std::move(step)};
  std::vector<GraphStep> steps;
  GraphStep stitch;
  stitch.kind = StepKind::kFatbinStitch;
  for (const Image& image : images) {
    GraphStep one;
    one.kind = StepKind::kFatbinary;
    one.arch = "sm_" + image.arch;
    one.argv = common;
    one.argv.push_back(image.word);
    std::string fatbin = image.file + std::string(kImageFatbinSuffix);
    one.argv.push_back("--create=" + fatbin);
    one.outputs = {fatbin};
    one.inputs = {image.file};
    stitch.fatbin_images.push_back(fatbin);
    steps.push_back(std::move(one));
  }
  stitch.argv = std::move(step.argv);
  stitch.outputs = std::move(step.outputs);
  stitch.fatbin = std::move(step.fatbin);
  stitch.inputs = stitch.fatbin_images;
  stitch.inputs.insert(stitch.inputs.end(), step.inputs.begin(), step.inputs.end());
  steps.push_back(std::move(stitch));
  return steps;
}

}  // namespace fastcuda

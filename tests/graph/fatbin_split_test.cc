#include "src/graph/fatbin_split.h"

#include <doctest/doctest.h>

namespace fastcuda {
namespace {

/// nvcc's fatbinary command for SASS of sm_80 and SASS and PTX of sm_90,
/// with `extra` options, its temporaries in /w.
GraphStep Fatbinary(std::vector<std::string> extra = {}) {
  GraphStep step;
  step.kind = StepKind::kFatbinary;
  step.argv = {"fatbinary", "-64", "--cicc-cmdline=-ftz=0 -prec_div=1 -prec_sqrt=1 -fmad=1 "};
  step.argv.insert(step.argv.end(), extra.begin(), extra.end());
  for (const char* image : {"--image3=kind=elf,sm=80,file=/w/k.compute_80.cubin",
                            "--image3=kind=elf,sm=90,file=/w/k.compute_90.sm_90.cubin",
                            "--image3=kind=ptx,sm=90,file=/w/k.compute_90.ptx"}) {
    step.argv.push_back(image);
  }
  step.argv.push_back("--embedded-fatbin=/w/k.fatbin.c");
  step.outputs = {"/w/k.fatbin.c"};
  step.inputs = {"/w/k.compute_80.cubin", "/w/k.compute_90.sm_90.cubin", "/w/k.compute_90.ptx"};
  return step;
}

TEST_CASE("a fatbinary of two architectures splits into one step per image and the stitch") {
  std::vector<GraphStep> steps = SplitFatbinary(Fatbinary({"--compress-mode=size", "--device-c"}));
  REQUIRE(steps.size() == 4);
  const GraphStep& ptx = steps[2];
  CHECK(ptx.kind == StepKind::kFatbinary);
  CHECK(CompressesOneImage(ptx));
  CHECK(ptx.arch == "sm_90");
  CHECK(ptx.argv == std::vector<std::string>{"fatbinary", "-64",
                                             "--cicc-cmdline=-ftz=0 -prec_div=1 -prec_sqrt=1 -fmad=1 ",
                                             "--compress-mode=size", "--device-c",
                                             "--image3=kind=ptx,sm=90,file=/w/k.compute_90.ptx",
                                             "--create=/w/k.compute_90.ptx.image.fatbin"});
  CHECK(ptx.inputs == std::vector<std::string>{"/w/k.compute_90.ptx"});
  CHECK(ptx.outputs == std::vector<std::string>{"/w/k.compute_90.ptx.image.fatbin"});
  const GraphStep& stitch = steps.back();
  CHECK(stitch.kind == StepKind::kFatbinStitch);
  CHECK_FALSE(CompressesOneImage(stitch));
  CHECK(stitch.argv ==
        Fatbinary({"--compress-mode=size", "--device-c"}).argv);  // run whole where they do not join
  CHECK(stitch.outputs == std::vector<std::string>{"/w/k.fatbin.c"});
  CHECK(stitch.fatbin_images == std::vector<std::string>{"/w/k.compute_80.cubin.image.fatbin",
                                                         "/w/k.compute_90.sm_90.cubin.image.fatbin",
                                                         "/w/k.compute_90.ptx.image.fatbin"});
  CHECK(stitch.inputs.size() == 6);  // the images' fatbins, and the images for the whole run
}

TEST_CASE("every option nvcc passes in the proved shapes splits; any other runs fatbinary whole") {
  for (const char* proved : {"--compress-mode=default", "--compress-mode=none", "--compress-mode=speed",
                             "--compress-mode=balance", "-compress-all", "-compress=false",
                             "--cmdline=--compile-only  ", "--ident=/src/k.cu", "-g", "--device-c"}) {
    CAPTURE(proved);
    CHECK(SplitFatbinary(Fatbinary({proved})).size() == 4);
  }
  for (const char* other :
       {"--compress-mode=fast", "-compress=true", "--compress=false", "--no-asm", "--create=/w/k.fatbin",
        "--embedded-fatbin=/w/other.fatbin.c", "--image2=kind=elf,file=/w/k.o", "--options-file=/w/more",
        "-32", "--compress-mode", "size"}) {
    CAPTURE(other);
    std::vector<GraphStep> steps = SplitFatbinary(Fatbinary({other}));
    REQUIRE(steps.size() == 1);
    CHECK(steps.front().argv == Fatbinary({other}).argv);
    CHECK_FALSE(CompressesOneImage(steps.front()));
  }
}

TEST_CASE("one architecture, an image named twice, or another program: fatbinary runs whole") {
  GraphStep one = Fatbinary();
  std::erase_if(one.argv, [](const std::string& word) { return word.find("sm=90") != std::string::npos; });
  CHECK(SplitFatbinary(one).size() == 1);
  GraphStep twice = Fatbinary();
  twice.argv[3] = "--image3=kind=elf,sm=80,file=/w/k.compute_90.ptx";
  twice.argv[4] = "--image3=kind=ptx,sm=90,file=/w/k.compute_90.ptx";
  CHECK(SplitFatbinary(twice).size() == 1);
  GraphStep specific = Fatbinary();  // sm_90a: another architecture than sm_90
  specific.argv[4] = "--image3=kind=elf,sm=90a,file=/w/k.compute_90a.sm_90a.cubin";
  std::vector<GraphStep> split = SplitFatbinary(specific);
  REQUIRE(split.size() == 4);
  CHECK(split[1].arch == "sm_90a");
  one.argv.push_back("--image3=kind=elf,sm=90a,file=/w/k.compute_90a.sm_90a.cubin");
  CHECK(SplitFatbinary(one).size() == 3);
  GraphStep wrapped = Fatbinary();
  wrapped.argv.front() = "my-fatbinary";
  CHECK(SplitFatbinary(wrapped).size() == 1);
  GraphStep cicc;
  cicc.kind = StepKind::kCicc;
  cicc.argv = {"cicc"};
  CHECK(SplitFatbinary(cicc).front().kind == StepKind::kCicc);
}

}  // namespace
}  // namespace fastcuda

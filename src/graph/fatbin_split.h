// Fatbinary off the critical path. nvcc runs fatbinary once, after the last
// ptxas, and it compresses every image (PTX and SASS of each architecture)
// one after another. Each image is compressed on its own into the container
// (fatbin_container.h), so FastCuda runs fatbinary once per image, each as
// soon as its PTX or cubin exists, beside the other architectures' cicc and
// ptxas; a stitch step then joins the entries behind one header and writes
// the `.fatbin.c` (or, early host, the binary fatbin) with nvcc's bytes.
// Only the command shapes that tests/integration/fatbin_split.sh proves
// byte-identical to nvcc's are split; any other runs fatbinary whole.
#pragma once

#include <string_view>
#include <vector>

#include "src/graph/step_graph.h"

namespace fastcuda {

/// The suffix of the fatbin of one image, after the name of the image's file.
inline constexpr std::string_view kImageFatbinSuffix = ".image.fatbin";

/// True for a step that compresses one image of a split fatbinary.
bool CompressesOneImage(const Step& step);

/// A fatbinary step (its temporaries in the work dir, before its launcher
/// goes in front) as the steps that replace it: one fatbinary per image,
/// reading that image alone and writing its fatbin beside it, then the
/// stitch (kFatbinStitch) that writes what the step wrote, from those
/// fatbins (GraphStep::fatbin_images). Its program is the whole fatbinary
/// command: it runs it without images for the `.fatbin.c`'s text, and whole
/// where the fatbins do not join. `step` alone where its command is not of
/// a proved shape: only options nvcc passes for the shapes tested, one
/// `--embedded-fatbin` and no `--create`, images of two architectures at least.
std::vector<GraphStep> SplitFatbinary(GraphStep step);

}  // namespace fastcuda

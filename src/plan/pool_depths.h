// How many steps of each kind may run at once, as a user configures it.
#pragma once

#include <map>
#include <string>

#include "src/nvcc/step.h"

namespace fastcuda {

/// Configured depth of the pool of each step kind; kinds not listed share
/// Ninja's plain -j limit.
using PoolDepths = std::map<StepKind, int>;

/// Reads pool depths from text such as "cicc=4,ptxas=8" (kind names are the
/// rule names, any case). Throws std::invalid_argument on bad text.
PoolDepths ParsePoolDepths(const std::string& text);

}  // namespace fastcuda

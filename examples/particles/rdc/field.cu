#include "field.h"

/// A smooth external potential's force at (x, y).
__device__ float2 ExternalField(float x, float y) { return make_float2(-0.01f * x, -0.01f * y); }

#pragma once
#define SHARED_FACTOR 2.f
__device__ inline float twice(float x) { return SHARED_FACTOR * x; }

#pragma once
__device__ inline float twice(float x) { return 2.f * x; }

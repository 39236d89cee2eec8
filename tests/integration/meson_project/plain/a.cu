#include "shared.cuh"
#ifndef SCALE
#define SCALE 1.f
#endif
__global__ void ka(float *x) { x[threadIdx.x] = SCALE * twice(x[threadIdx.x]); }
void launch_a(float *x) { ka<<<1, 32>>>(x); }

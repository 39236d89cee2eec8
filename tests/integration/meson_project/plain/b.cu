#include "shared.cuh"
#include "factor.h"
__global__ void kb(float *x) { x[threadIdx.x] = GEN_FACTOR * twice(x[threadIdx.x]); }
void launch_b(float *x) { kb<<<1, 32>>>(x); }

#include "common.h"
#include "only_b.h"
__global__ void kb(float *x) { x[threadIdx.x] = B_SCALE * twice(x[threadIdx.x]); }
void launch_b(float *x) { kb<<<1, 32>>>(x); }

#include "common.h"
__global__ void ka(float *x) { x[threadIdx.x] = twice(x[threadIdx.x]); }
void launch_a(float *x) { ka<<<1, 32>>>(x); }

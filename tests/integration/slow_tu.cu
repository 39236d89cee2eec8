// A TU whose compile takes seconds (CUB), for the tests that stop FastCuda
// halfway and for bench/reliability_cost.sh.
#include <cub/block/block_reduce.cuh>
template <int N> __global__ void k(float *p) {
  typedef cub::BlockReduce<float, 128> R;
  __shared__ typename R::TempStorage t;
  float v = p[threadIdx.x];
  for (int i = 0; i < N; ++i) v = v * 1.0001f + i;
  p[0] = R(t).Sum(v);
}
template __global__ void k<1>(float *);
void run(float *p) { k<1><<<1, 128>>>(p); }

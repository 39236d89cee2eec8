#include "check.h"
#include "particles.h"

namespace {
/// Softened pairwise attraction towards every other particle (O(n^2), tiled).
template <int kTile>
__global__ void Forces(const float* x, const float* y, float* fx, float* fy, int n) {
  __shared__ float sx[kTile], sy[kTile];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float xi = i < n ? x[i] : 0.f, yi = i < n ? y[i] : 0.f, ax = 0.f, ay = 0.f;
  for (int base = 0; base < n; base += kTile) {
    int j = base + threadIdx.x;
    sx[threadIdx.x] = j < n ? x[j] : 0.f;
    sy[threadIdx.x] = j < n ? y[j] : 0.f;
    __syncthreads();
#pragma unroll 8
    for (int k = 0; k < kTile && base + k < n; ++k) {
      float dx = sx[k] - xi, dy = sy[k] - yi;
      float inv = rsqrtf(dx * dx + dy * dy + 1e-2f);
      float s = inv * inv * inv;
      ax += dx * s;
      ay += dy * s;
    }
    __syncthreads();
  }
  if (i < n) {
    fx[i] = ax;
    fy[i] = ay;
  }
}
}  // namespace

void ComputeForces(const Particles& p, float* fx, float* fy) {
  constexpr int kTile = 128;
  int n = static_cast<int>(p.count);
  Forces<kTile><<<(n + kTile - 1) / kTile, kTile>>>(p.x, p.y, fx, fy, n);
  CHECK_CUDA(cudaGetLastError());
}

#include "check.h"
#include "particles.h"

/// Semi-implicit Euler step.
__global__ void IntegrateKernel(float* x, float* y, float* vx, float* vy, const float* fx,
                                const float* fy, float dt, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  vx[i] += fx[i] * dt;
  vy[i] += fy[i] * dt;
  x[i] += vx[i] * dt;
  y[i] += vy[i] * dt;
}

void Integrate(Particles& p, const float* fx, const float* fy, float dt) {
  int n = static_cast<int>(p.count);
  IntegrateKernel<<<(n + 255) / 256, 256>>>(p.x, p.y, p.vx, p.vy, fx, fy, dt, n);
  CHECK_CUDA(cudaGetLastError());
}

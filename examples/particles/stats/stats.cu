#include <vector>

#include "check.h"
#include "particles.h"

/// Per-block partial sums of v^2 / 2, in double for a reproducible total.
__global__ void EnergyKernel(const float* vx, const float* vy, double* partial, int n) {
  __shared__ double sums[256];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  sums[threadIdx.x] = i < n ? 0.5 * (double(vx[i]) * vx[i] + double(vy[i]) * vy[i]) : 0.0;
  __syncthreads();
  for (int stride = blockDim.x / 2; stride > 0; stride /= 2) {
    if (threadIdx.x < stride) sums[threadIdx.x] += sums[threadIdx.x + stride];
    __syncthreads();
  }
  if (threadIdx.x == 0) partial[blockIdx.x] = sums[0];
}

double KineticEnergy(const Particles& p) {
  int n = static_cast<int>(p.count), blocks = (n + 255) / 256;
  double* partial = nullptr;
  CHECK_CUDA(cudaMalloc(&partial, blocks * sizeof(double)));
  EnergyKernel<<<blocks, 256>>>(p.vx, p.vy, partial, n);
  std::vector<double> host(blocks);
  CHECK_CUDA(cudaMemcpy(host.data(), partial, blocks * sizeof(double), cudaMemcpyDeviceToHost));
  CHECK_CUDA(cudaFree(partial));
  double total = 0;
  for (double value : host) total += value;
  return total;
}

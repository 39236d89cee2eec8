#include <vector>

#include "check.h"
#include "field.h"

/// Per-block sums of the external field (same basename as stats/stats.cu).
__global__ void FieldSums(const float* x, const float* y, float2* partial, int n) {
  __shared__ float2 sums[256];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  sums[threadIdx.x] = i < n ? ExternalField(x[i], y[i]) : make_float2(0.f, 0.f);
  __syncthreads();
  for (int stride = blockDim.x / 2; stride > 0; stride /= 2) {
    if (threadIdx.x < stride) {
      sums[threadIdx.x].x += sums[threadIdx.x + stride].x;
      sums[threadIdx.x].y += sums[threadIdx.x + stride].y;
    }
    __syncthreads();
  }
  if (threadIdx.x == 0) partial[blockIdx.x] = sums[0];
}

float2 MeanExternalForce(const float* x, const float* y, std::size_t count) {
  int n = static_cast<int>(count), blocks = (n + 255) / 256;
  float2* partial = nullptr;
  CHECK_CUDA(cudaMalloc(&partial, blocks * sizeof(float2)));
  FieldSums<<<blocks, 256>>>(x, y, partial, n);
  std::vector<float2> host(blocks);
  CHECK_CUDA(cudaMemcpy(host.data(), partial, blocks * sizeof(float2), cudaMemcpyDeviceToHost));
  CHECK_CUDA(cudaFree(partial));
  float2 total = make_float2(0.f, 0.f);
  for (float2 value : host) {
    total.x += value.x;
    total.y += value.y;
  }
  return make_float2(total.x / n, total.y / n);
}

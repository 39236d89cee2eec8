#include <cmath>
#include <cstdio>
#include <vector>

#include "check.h"
#include "field.h"
#include "particles.h"

void PrintBuildInfo();

int main() {
  PrintBuildInfo();
  constexpr std::size_t kCount = 4096;
  std::vector<float> hx(kCount), hy(kCount), zero(kCount, 0.f);
  for (std::size_t i = 0; i < kCount; ++i) {
    hx[i] = std::cos(0.01f * i) * (1.f + 0.001f * i);
    hy[i] = std::sin(0.01f * i) * (1.f + 0.001f * i);
  }
  Particles p{nullptr, nullptr, nullptr, nullptr, kCount};
  float *fx = nullptr, *fy = nullptr;
  for (float** buffer : {&p.x, &p.y, &p.vx, &p.vy, &fx, &fy}) {
    CHECK_CUDA(cudaMalloc(buffer, kCount * sizeof(float)));
  }
  CHECK_CUDA(cudaMemcpy(p.x, hx.data(), kCount * sizeof(float), cudaMemcpyHostToDevice));
  CHECK_CUDA(cudaMemcpy(p.y, hy.data(), kCount * sizeof(float), cudaMemcpyHostToDevice));
  CHECK_CUDA(cudaMemcpy(p.vx, zero.data(), kCount * sizeof(float), cudaMemcpyHostToDevice));
  CHECK_CUDA(cudaMemcpy(p.vy, zero.data(), kCount * sizeof(float), cudaMemcpyHostToDevice));
  for (int step = 1; step <= 10; ++step) {
    ComputeForces(p, fx, fy);
    Integrate(p, fx, fy, 1e-4f);
    if (step % 5 == 0) std::printf("step %2d kinetic energy %.6e\n", step, KineticEnergy(p));
  }
  float2 mean = MeanExternalForce(p.x, p.y, p.count);
  std::printf("mean external force %.6e %.6e\n", mean.x, mean.y);
  CHECK_CUDA(cudaDeviceSynchronize());
  return 0;
}

#pragma once
#include <cstddef>

/// Particle state in structure-of-arrays layout, on the device.
struct Particles {
  float* x;
  float* y;
  float* vx;
  float* vy;
  std::size_t count;
};

void ComputeForces(const Particles& p, float* fx, float* fy);
void Integrate(Particles& p, const float* fx, const float* fy, float dt);
double KineticEnergy(const Particles& p);

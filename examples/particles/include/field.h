#pragma once
#include <cstddef>

/// Defined in another translation unit: needs relocatable device code.
__device__ float2 ExternalField(float x, float y);

/// Mean force of the external field over all particles.
float2 MeanExternalForce(const float* x, const float* y, std::size_t count);

#pragma once
#include <cstdio>
#include <cstdlib>

#define CHECK_CUDA(call)                                                                    \
  do {                                                                                      \
    cudaError_t status_ = (call);                                                           \
    if (status_ != cudaSuccess) {                                                           \
      std::fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(status_)); \
      std::exit(1);                                                                         \
    }                                                                                       \
  } while (0)

#!/usr/bin/env bash
# Writes a CMake CUDA project of N TUs into DIR, deterministic from SEED.
#   light:  every TU is one small kernel with the same flags (for generation
#           and no-op benchmarks)
#   mixed:  like real libraries: most TUs light, about 1 in 5 host-heavy (CUB
#           device-wide sort, reduce and scan instantiated for several types),
#           about 1 in 5 device-heavy (unrolled math, where cicc and ptxas
#           dominate)
#   heavy:  every TU both: the CUB instances and three unrolled kernels (the
#           edit loop on one heavy TU, the memory benchmark)
# Every fourth TU includes include/corpus.h (the header-touch benchmark);
# device-heavy TUs have a host function to edit (host_revision_N).
# Usage: bench/make_corpus.sh DIR N [ARCHITECTURES] [light|mixed|heavy] [SEED]
set -euo pipefail
dir="$1"; count="$2"; archs="${3:-80-real}"; mix="${4:-light}"; seed="${5:-1}"
mkdir -p "$dir/src" "$dir/include"
rm -f "$dir"/src/*.cu
echo 'constexpr float corpus_scale = 1.0f;' > "$dir/include/corpus.h"
{
  echo "cmake_minimum_required(VERSION 3.25)"
  echo "set(CMAKE_CUDA_ARCHITECTURES \"$archs\" CACHE STRING \"\")"
  echo "project(FastCudaCorpus LANGUAGES CXX CUDA)"
  echo "set(CMAKE_CUDA_STANDARD 17)"
  echo "file(GLOB sources CONFIGURE_DEPENDS src/*.cu)"
  echo "add_library(corpus STATIC \${sources})"
  echo "target_include_directories(corpus PRIVATE include)"
} > "$dir/CMakeLists.txt"

light() {  # INDEX
  printf '__global__ void k%s(float *x, float a) { x[threadIdx.x] = a * x[threadIdx.x] + %s.0f; }\n' "$1" "$((10#$1))"
}

host_heavy() {  # INDEX
  cat <<CUDA
#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_reduce.cuh>
#include <cub/device/device_scan.cuh>

template <typename T>
void sort_reduce_scan_$1(T *in, T *out, T *sum, int n) {
  void *temp = nullptr;
  size_t bytes = 0;
  cub::DeviceRadixSort::SortKeys(temp, bytes, in, out, n);
  cub::DeviceReduce::Sum(temp, bytes, in, sum, n);
  cub::DeviceScan::InclusiveSum(temp, bytes, in, out, n);
}
template void sort_reduce_scan_$1<int>(int *, int *, int *, int);
template void sort_reduce_scan_$1<unsigned>(unsigned *, unsigned *, unsigned *, int);
template void sort_reduce_scan_$1<float>(float *, float *, float *, int);
template void sort_reduce_scan_$1<double>(double *, double *, double *, int);
CUDA
}

device_heavy() {  # INDEX UNROLL
  cat <<CUDA
template <int N>
__global__ void series_$1(const float *in, float *out) {
  float v = in[blockIdx.x * blockDim.x + threadIdx.x];
  float acc = 0.f;
#pragma unroll
  for (int i = 0; i < N; ++i) {
    acc = fmaf(sinf(v + i * 0.25f), cosf(v * (i + 1)), acc);
    v = v * 1.0001f + expf(-acc * 1e-3f);
  }
  out[blockIdx.x * blockDim.x + threadIdx.x] = acc + v;
}
template __global__ void series_$1<$2>(const float *, float *);
template __global__ void series_$1<$(( $2 / 2 ))>(const float *, float *);
int host_revision_$1() { return 0; }
CUDA
}

heavy() {  # INDEX UNROLL
  host_heavy "$1"
  for kernel in a b c; do device_heavy "$1$kernel" "$2"; done
}

for i in $(seq -w 1 "$count"); do
  file="$dir/src/tu$i.cu"
  kind=light
  if [ "$mix" = heavy ]; then
    kind=heavy
  elif [ "$mix" = mixed ]; then
    case $(( (10#$i * 7919 + seed * 104729) % 10 )) in
      0|1) kind=host ;;
      2|3) kind=device ;;
    esac
  fi
  case $kind in
    light) light "$i" > "$file" ;;
    host) host_heavy "$i" > "$file" ;;
    device) device_heavy "$i" $(( 96 + (10#$i * 31 + seed) % 64 )) > "$file" ;;
    heavy) heavy "$i" "${HEAVY_UNROLL:-64}" > "$file" ;;
  esac
  if [ $(( 10#$i % 4 )) -eq 0 ]; then sed -i '1i #include "corpus.h"' "$file"; fi
done

#!/usr/bin/env bash
# Writes a CMake CUDA project of N small TUs (distinct files, the same flags)
# into DIR: the corpus for generation and no-op benchmarks.
# Usage: bench/make_corpus.sh DIR N [ARCHITECTURES]
set -euo pipefail
dir="$1"; count="$2"; archs="${3:-80-real}"
mkdir -p "$dir/src"
{
  echo "cmake_minimum_required(VERSION 3.25)"
  echo "set(CMAKE_CUDA_ARCHITECTURES \"$archs\")"
  echo "project(FastCudaCorpus LANGUAGES CUDA)"
  echo "file(GLOB sources CONFIGURE_DEPENDS src/*.cu)"
  echo "add_library(corpus STATIC \${sources})"
} > "$dir/CMakeLists.txt"
for i in $(seq -w 1 "$count"); do
  printf '__global__ void k%s(float *x, float a) { x[threadIdx.x] = a * x[threadIdx.x] + %s.0f; }\n' \
    "$i" "$((10#$i))" > "$dir/src/tu$i.cu"
done

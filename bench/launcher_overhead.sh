#!/usr/bin/env bash
# Launcher overhead on a trivial single-architecture TU: `fastcuda nvcc -c`
# against `nvcc -c`, each run cold (FastCuda's work dir removed first, so it
# splits and runs every step). Runs alternate; prints medians and the ratio.
# Usage: bench/launcher_overhead.sh [REPEATS]   (default 15)
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
repeats="${1:-15}"
cd "$work"
printf '__global__ void scale(float *x, float a) { x[threadIdx.x] *= a; }\n' > trivial.cu
args=(-c trivial.cu -arch=sm_80 -o trivial.o)

: > nvcc.ms; : > fastcuda.ms
run_quietly nvcc "${args[@]}"  # warm the page cache for both
for _ in $(seq "$repeats"); do
  wall_ms nvcc "${args[@]}" >> nvcc.ms
  rm -rf .fastcuda
  wall_ms "$FASTCUDA_BINARY" nvcc "${args[@]}" >> fastcuda.ms
done
awk -v n="$(median nvcc.ms)" -v f="$(median fastcuda.ms)" -v r="$repeats" -v c="$jobs" 'BEGIN {
  printf "launcher overhead, trivial sm_80 TU, %d runs each, %d cores: nvcc %.1f ms, fastcuda %.1f ms, ratio %.3f (overhead %+.1f%%)\n",
         r, c, n, f, f / n, (f / n - 1) * 100 }'

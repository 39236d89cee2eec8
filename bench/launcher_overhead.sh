#!/usr/bin/env bash
# Launcher overhead on a trivial single-architecture TU: `fastcuda nvcc -c`
# against `nvcc -c`, each run cold (FastCuda's work dir removed first, so it
# splits and runs every step). Runs alternate; prints medians and the ratio.
# Usage: bench/launcher_overhead.sh [REPEATS]   (default 15)
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../cmake/bootstrap.sh"
repeats="${1:-15}"
work="$(mktemp -d "$FASTCUDA_BUILD_DIR/bench-overhead.XXXXXX")"
trap 'rm -rf "$work"' EXIT
cd "$work"
printf '__global__ void scale(float *x, float a) { x[threadIdx.x] *= a; }\n' > trivial.cu
args=(-c trivial.cu -arch=sm_80 -o trivial.o)

seconds() {  # COMMAND...: wall time of one run
  local start end
  start=$(date +%s%N)
  "$@" >/dev/null
  end=$(date +%s%N)
  echo $(( (end - start) / 1000 ))
}

: > nvcc.times; : > fastcuda.times
nvcc "${args[@]}"  # warm the page cache for both
for _ in $(seq "$repeats"); do
  seconds nvcc "${args[@]}" >> nvcc.times
  rm -rf .fastcuda
  seconds "$FASTCUDA_BINARY" nvcc "${args[@]}" >> fastcuda.times
done
median() { sort -n "$1" | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
n=$(median nvcc.times); f=$(median fastcuda.times)
awk -v n="$n" -v f="$f" -v r="$repeats" -v c="$(nproc)" 'BEGIN {
  printf "launcher overhead, trivial sm_80 TU, %d runs each, %d cores: nvcc %.1f ms, fastcuda %.1f ms, ratio %.3f (overhead %+.1f%%)\n",
         r, c, n / 1000, f / 1000, f / n, (f / n - 1) * 100 }'

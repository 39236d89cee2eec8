#!/usr/bin/env bash
# The edit loop on one TU with a heavy device part, built for ARCHS: after a
# host-only edit, FastCuda (restat pruning: cicc reruns, ptxas and fatbinary
# do not) against nvcc recompiling everything. Medians of REPEATS.
# Usage: bench/edit_rebuild.sh [ARCHS] [REPEATS]
#   ARCHS: comma-separated sm numbers, default 75,80,86,89,90
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../cmake/bootstrap.sh"
archs="${1:-75,80,86,89,90}"; repeats="${2:-3}"
work="$(mktemp -d "$FASTCUDA_BUILD_DIR/bench-edit.XXXXXX")"
trap 'rm -rf "$work"' EXIT
cd "$work"
"$FASTCUDA_SOURCE_DIR/bench/make_corpus.sh" corpus 6 80-real mixed 1 >/dev/null
heavy=$(grep -l 'series_' corpus/src/*.cu | head -1)
{ cat "$heavy"; echo '#include <cstdio>'; echo 'void report(int n) { std::printf("edit 0 %d\n", n); }'; } > tu.cu
gencode=()
for sm in ${archs//,/ }; do gencode+=(-gencode "arch=compute_$sm,code=sm_$sm"); done
args=(-c tu.cu -o tu.o "${gencode[@]}")
"$FASTCUDA_BINARY" gen --out graph -- nvcc "${args[@]}"
ninja -C graph >/dev/null

ms() { local s e; s=$(date +%s%N); "$@" >/dev/null; e=$(date +%s%N); echo $(( (e - s) / 1000000 )); }
for i in $(seq "$repeats"); do
  sed -i "s/edit [0-9]*/edit $i/" tu.cu
  ms nvcc "${args[@]/tu.o/ref.o}" >> nvcc.ms
  ms ninja -C graph >> fastcuda.ms
done
median() { sort -n "$1" | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
awk -v n="$(median nvcc.ms)" -v f="$(median fastcuda.ms)" -v a="$archs" -v c="$(nproc)" 'BEGIN {
  printf "host-only edit of a device-heavy TU, sm %s, %d cores: nvcc %d ms, fastcuda rebuild %d ms, ratio %.2f\n",
         a, c, n, f, f / n }'

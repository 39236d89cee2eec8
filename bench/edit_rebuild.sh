#!/usr/bin/env bash
# The edit loop on one TU with a heavy device part, built for ARCHS: after a
# host-only edit, FastCuda (restat pruning: cicc reruns, ptxas and fatbinary
# do not) against nvcc recompiling everything. Medians of REPEATS.
# Usage: bench/edit_rebuild.sh [ARCHS] [REPEATS]
#   ARCHS: comma-separated sm numbers, default 75,80,86,89,90
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
archs="${1:-75,80,86,89,90}"; repeats="${2:-3}"
cd "$work"
"$bench_dir/make_corpus.sh" corpus 6 80-real mixed 1
heavy=$(grep -l 'series_' corpus/src/*.cu | head -1)
cp "$heavy" tu.cu
gencode=()
for sm in ${archs//,/ }; do gencode+=(-gencode "arch=compute_$sm,code=sm_$sm"); done
args=(-c tu.cu -o tu.o -Icorpus/include "${gencode[@]}")
run_quietly "$FASTCUDA_BINARY" gen --out graph -- nvcc "${args[@]}"
run_quietly ninja -C graph

for i in $(seq "$repeats"); do
  sed -i "s/return [0-9]*; }/return $i; }/" tu.cu
  wall_ms nvcc "${args[@]/tu.o/ref.o}" >> nvcc.ms
  wall_ms ninja -C graph >> fastcuda.ms
done
awk -v n="$(median nvcc.ms)" -v f="$(median fastcuda.ms)" -v a="$archs" -v c="$jobs" 'BEGIN {
  printf "host-only edit of a device-heavy TU, sm %s, %d cores: nvcc %.0f ms, fastcuda rebuild %.0f ms, ratio %.2f\n",
         a, c, n, f, f / n }'

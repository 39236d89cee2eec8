#!/usr/bin/env bash
# Memory-aware scheduling against real nvcc: with no history and a tight
# FASTCUDA_MEMORY_BUDGET, the heavy steps (cicc) of a three-architecture TU
# never overlap; every step's peak memory is recorded; with that history the
# next generation needs no pools, and changing pools rebuilds nothing; nor
# does a fresh graph given those peaks as remembered ones.
#
# usage: memory.sh FASTCUDA_BINARY [NVCC]
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/checks.sh" memory "$@"
cd "$scratch"
printf '__global__ void k(float *x) { x[threadIdx.x] = sinf(x[threadIdx.x]); }\n' > tu.cu
args=(-c tu.cu -o tu.o -gencode arch=compute_80,code=sm_80 -gencode arch=compute_86,code=sm_86
      -gencode arch=compute_90,code=sm_90)
FASTCUDA_MEMORY_BUDGET=1G "$FASTCUDA" gen --out graph -j 4 -- "$NVCC" "${args[@]}"
pools_first() { grep -q '^pool fastcuda_mem_1024m' graph/build.ninja && [ "$(grep -c 'pool = fastcuda_mem_1024m' graph/build.ninja)" -eq 3 ]; }
check "no history, 1 GiB budget: the three cicc steps share a pool of depth 1" pools_first
ninja -C graph -j 4 >/dev/null
cicc_never_overlap() {
  grep -v '^#' graph/.ninja_log | awk -F'\t' '$4 ~ /\.ptx$/ { print $1, $2 }' | sort -n |
    awk 'NR > 1 && $1 < last_end { bad = 1 } { last_end = $2 } END { exit bad || NR != 3 }'
}
check "the cicc steps ran one at a time" cicc_never_overlap
recorded() { [ "$(wc -l < graph/step-memory.tsv)" -ge 10 ] && awk -F'\t' '$2 <= 0 { exit 1 }' graph/step-memory.tsv; }
check "every step's peak memory is recorded" recorded
FASTCUDA_MEMORY_BUDGET=1G "$FASTCUDA" gen --out graph -j 4 -- "$NVCC" "${args[@]}"
no_pools_with_history() { ! grep -q '^pool ' graph/build.ninja; }
check "with the measured history the same budget needs no pool" no_pools_with_history
nothing_rebuilt() { ninja -C graph -n | grep -q 'no work to do'; }
check "changing pools rebuilds nothing" nothing_rebuilt
remembered_peaks_plan() {  # a fresh graph whose remembered-memory.tsv holds those peaks (as a first build
  # ranked by remembered step times writes it): the same budget needs no pool there either
  mkdir -p graph2 && sed "s|$scratch/graph/|$scratch/graph2/|" graph/step-memory.tsv > graph2/remembered-memory.tsv &&
    FASTCUDA_MEMORY_BUDGET=1G "$FASTCUDA" gen --out graph2 -j 4 -- "$NVCC" "${args[@]}" &&
    grep -q "$scratch/graph2/" graph2/remembered-memory.tsv && ! grep -q '^pool ' graph2/build.ninja
}
check "a fresh graph with remembered peaks plans as one with its own history" remembered_peaks_plan

finish

#!/usr/bin/env bash
# What "never a stale object" costs in incremental builds: this fastcuda
# against another (one built before the invariant, given as BASELINE), side
# by side on one 2-architecture TU, in the cases where the two differ:
#   recall   the launcher called again with nothing changed (it now reruns
#            the preprocessing, to read the sources anew as nvcc would)
#   touch    the source touched, its text unchanged (both preprocess; restat
#            skips the rest)
#   removed  the object removed (the TU now rebuilds whole, as nvcc does;
#            before, only the host compile reran on kept intermediates)
#   noop     `fastcuda build` of a one-TU database with nothing to do (it now
#            reads the kept files and looks for each object)
# and nvcc itself for the same TU. Prints medians and ratios.
# Usage: bench/reliability_cost.sh BASELINE_FASTCUDA [REPEATS]   (default 5)
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
baseline="$(realpath "$1")"
repeats="${2:-5}"
cd "$work"
cp "$bench_dir/../tests/integration/slow_tu.cu" tu.cu
args=(-gencode arch=compute_80,code=sm_80 -gencode arch=compute_90,code=sm_90 -c tu.cu)
printf '[{"directory": "%s", "file": "tu.cu", "command": "nvcc %s -o db.o"}]\n' "$work" "${args[*]}" > db.json

measure() {  # NAME TOOL: appends one run of each case to NAME.CASE
  local name=$1 tool=$2 out="$1.o"
  run_quietly "$tool" nvcc "${args[@]}" -o "$out"
  wall_ms "$tool" nvcc "${args[@]}" -o "$out" >> "$name.recall"
  touch tu.cu
  wall_ms "$tool" nvcc "${args[@]}" -o "$out" >> "$name.touch"
  rm "$out"
  wall_ms "$tool" nvcc "${args[@]}" -o "$out" >> "$name.removed"
  rm -rf "graph-$name"
  run_quietly "$tool" build --compdb db.json --out "graph-$name"
  wall_ms "$tool" build --compdb db.json --out "graph-$name" >> "$name.noop"
}

: > nvcc.ms
for _ in $(seq "$repeats"); do
  wall_ms nvcc "${args[@]}" -o nvcc.o >> nvcc.ms
  measure baseline "$baseline"
  measure current "$FASTCUDA_BINARY"
done
machine_info
echo "baseline: $("$baseline" --version); nvcc alone: $(median nvcc.ms) ms (median of $repeats)"
for case in recall touch removed noop; do
  awk -v c="$case" -v b="$(median "baseline.$case")" -v n="$(median "current.$case")" -v v="$(median nvcc.ms)" 'BEGIN {
    printf "%-8s baseline %8.1f ms  current %8.1f ms  current/baseline %.2f  current/nvcc %.2f\n", c, b, n, n / b, n / v }'
done

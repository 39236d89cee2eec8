#!/usr/bin/env bash
# What the check that reruns the steps whose sources changed (a file a step
# read has changed since it started: src/plan/source_reads.h) costs a no-op
# build and a header touch, side by side in one run: each build is timed with
# the graph's `source-reads.tsv` in place and with it set aside (no check), in
# turns on the same build directory. Through `fastcuda build --compdb` and through
# `fastcuda ninja` on the CMake build directory of a light corpus.
# Usage: bench/source_reads_cost.sh [N] [ARCHITECTURES]
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
count="${1:-1000}"
archs="${2:-80-real}"
"$bench_dir/make_corpus.sh" "$work/corpus" "$count" "$archs"
run_quietly cmake -S "$work/corpus" -B "$work/cmake" -G Ninja -DCMAKE_EXPORT_COMPILE_COMMANDS=ON
compdb="$work/cmake/compile_commands.json"
run_quietly "$FASTCUDA_BINARY" build --compdb "$compdb" --out "$work/graph" -j "$jobs"
run_quietly "$FASTCUDA_BINARY" ninja -C "$work/cmake" -j "$jobs"

with_and_without() {  # GRAPH-DIR LABEL COMMAND...: median no-op ms with the check, without it
  # (9 runs each, taken in turns: the machine's drift falls on both)
  local reads="$1/source-reads.tsv" label=$2
  shift 2
  run_quietly "$@"  # settled
  : > "$work/with"
  : > "$work/without"
  for _ in 1 2 3 4 5 6 7 8 9; do
    wall_ms "$@" >> "$work/with"
    mv "$reads" "$reads.aside"
    wall_ms "$@" >> "$work/without"
    mv "$reads.aside" "$reads"
  done
  local with without
  with=$(median "$work/with")
  without=$(median "$work/without")
  echo "$label no-op, $count TUs: ${with} ms with the check, ${without} ms without" \
    "($(awk -v a="$with" -v b="$without" 'BEGIN { printf "%+.1f", a - b }') ms)"
}
median9() {  # COMMAND...: median wall ms of 9 runs
  for _ in 1 2 3 4 5 6 7 8 9; do wall_ms "$@"; done > "$work/median9"
  median "$work/median9"
}
echo "$(machine_info)"
echo "source-reads.tsv: $(wc -l < "$work/graph/source-reads.tsv") lines; .ninja_deps: $(stat -c %s "$work/graph/.ninja_deps") bytes"
with_and_without "$work/graph" "fastcuda build" "$FASTCUDA_BINARY" build --compdb "$compdb" --out "$work/graph"
with_and_without "$work/cmake/.fastcuda" "fastcuda ninja" "$FASTCUDA_BINARY" ninja -C "$work/cmake"
plain=$(median9 ninja -C "$work/cmake" -n)
echo "plain ninja -n on the same directory: ${plain} ms"
# A header that every fourth TU includes, touched: what reruns, and how long.
touch "$work/corpus/include/corpus.h"
touched=$(wall_ms "$FASTCUDA_BINARY" build --compdb "$compdb" --out "$work/graph" -j "$jobs")
echo "fastcuda build after touching corpus.h ($((count / 4)) TUs read it): ${touched} ms"

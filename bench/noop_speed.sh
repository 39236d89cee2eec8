#!/usr/bin/env bash
# The wall of a build with nothing to do, `fastcuda ninja` against plain
# `ninja`, side by side on one CMake + Ninja build directory of N light CUDA
# TUs and M one-function C++ TUs (N + M object edges, about N + M + 14 in
# all): built once with `fastcuda ninja`, then timed in turns, 9 runs each
# (medians), with BENCH_EVENTS=1 also by their CPU (task clock, the
# process's and its children's: the wall of a loaded machine moves by
# more than the difference), and the `-d stats` of the Ninja that one
# fastcuda ninja runs on the rewrite (-d makes it load the steps). Plain
# ninja finds the objects up to date: fastcuda ninja handed them over.
# With --build, also `fastcuda build --compdb` on the same database (a
# second clean build) against its own graph's plain `ninja`.
# BENCH_CORPUS=DIR keeps the corpus and its build directory in DIR and
# reuses them when they are there (a second run skips the clean build).
# Usage: bench/noop_speed.sh [N] [M] [--build]
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
count="${1:-600}"
cxx="${2:-0}"
also_build="${3:-}"
corpus="${BENCH_CORPUS:-$work}"
cmake_dir="$corpus/cmake-$count-$cxx"

if [ ! -f "$cmake_dir/.fastcuda/build.ninja" ]; then
  "$bench_dir/make_corpus.sh" "$corpus/corpus-$count-$cxx" "$count"
  for i in $(seq -w 1 "$cxx"); do
    echo "int host_function_$i(int x) { return x * $((10#$i)) + 1; }" > "$corpus/corpus-$count-$cxx/src/host$i.cpp"
  done
  echo 'file(GLOB host_sources CONFIGURE_DEPENDS src/*.cpp)' >> "$corpus/corpus-$count-$cxx/CMakeLists.txt"
  echo 'target_sources(corpus PRIVATE ${host_sources})' >> "$corpus/corpus-$count-$cxx/CMakeLists.txt"
  run_quietly cmake -S "$corpus/corpus-$count-$cxx" -B "$cmake_dir" -G Ninja -DCMAKE_EXPORT_COMPILE_COMMANDS=ON
  run_quietly "$FASTCUDA_BINARY" ninja -C "$cmake_dir" -j "$jobs"
fi

task_clock_ms() {  # COMMAND...: the CPU of one run, its own and its children's (BENCH_EVENTS=1)
  (count_start && run_quietly "$@" && count_stop) | awk '{ print $1 }'
}

in_turns() {  # MEASURE LABEL-A LABEL-B -- COMMAND-A... -- COMMAND-B...: medians of 9 runs each, in turns
  local measure=$1 a=$2 b=$3 first=() second=()
  shift 4
  while [ "$1" != -- ]; do first+=("$1"); shift; done
  shift
  second=("$@")
  run_quietly "${first[@]}"  # settled
  : > "$work/first"
  : > "$work/second"
  for _ in 1 2 3 4 5 6 7 8 9; do
    "$measure" "${first[@]}" >> "$work/first"
    "$measure" "${second[@]}" >> "$work/second"
  done
  local x y
  x=$(median "$work/first")
  y=$(median "$work/second")
  awk -v what="$([ "$measure" = wall_ms ] && echo wall || echo CPU)" -v a="$a" -v b="$b" -v x="$x" -v y="$y" -v n="$count" -v m="$cxx" 'BEGIN {
    printf "no-op, %d CUDA + %d C++ TUs, %s: %s %.1f ms, %s %.1f ms (%+.1f ms)\n", n, m, what, a, x, b, y, x - y }'
}

echo "$(machine_info)"
echo "edges in the CMake manifest: $(grep -c '^build ' "$cmake_dir/build.ninja");" \
  "in the rewrite and its steps: $(cat "$cmake_dir/.fastcuda/manifest"/*.ninja "$cmake_dir/.fastcuda/build.ninja" \
  "$cmake_dir/.fastcuda/steps.ninja" 2>/dev/null | grep -c '^build ')"
in_turns wall_ms "fastcuda ninja" "plain ninja" -- "$FASTCUDA_BINARY" ninja -C "$cmake_dir" -- ninja -C "$cmake_dir"
if [ -n "$event_counter" ]; then
  in_turns task_clock_ms "fastcuda ninja" "plain ninja" -- "$FASTCUDA_BINARY" ninja -C "$cmake_dir" -- ninja -C "$cmake_dir"
fi
echo "the inner Ninja of one fastcuda ninja no-op (-d stats):"
"$FASTCUDA_BINARY" ninja -C "$cmake_dir" -d stats 2>&1 | sed -n '/^metric/,$p'
echo "plain ninja on the same directory (-d stats):"
ninja -C "$cmake_dir" -d stats 2>&1 | sed -n '/^metric/,$p'

if [ "$also_build" = --build ]; then
  graph="$corpus/graph-$count-$cxx"
  compdb="$cmake_dir/compile_commands.json"
  run_quietly "$FASTCUDA_BINARY" build --compdb "$compdb" --out "$graph" -j "$jobs"
  in_turns wall_ms "fastcuda build" "plain ninja on its graph" -- \
    "$FASTCUDA_BINARY" build --compdb "$compdb" --out "$graph" -- ninja -C "$graph"
fi

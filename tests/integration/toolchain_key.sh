#!/usr/bin/env bash
# What nvcc writes depends on more than its arguments: the variables its
# nvcc.profile names (PTXAS_FLAGS, CUDAFE_FLAGS, INCLUDES, ...) and the host
# compiler behind the name -ccbin gives it, which may be switched to another
# compiler (a symlink, update-alternatives) or changed in place (an upgrade)
# while the name stays. After such a change `fastcuda build`, the launcher,
# `fastcuda ninja` and the CMake module write the object a fresh nvcc
# writes, never one that the old dryrun or the old compiler made, and
# without removing anything by hand.
#
# usage: toolchain_key.sh FASTCUDA_BINARY [NVCC]
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
source "$here/checks.sh" toolchain_key "$@"
cd "$scratch"
arch=(-arch=sm_80)

kernel() {  # k.cu: a kernel whose cubin ptxas's -O changes, and host code
  printf '%s\n' '__global__ void k(float *p, int n) {' \
    '  float s = 0;' '  for (int i = 0; i < n; ++i) s += p[i] * p[i];' '  p[0] = s;' '}' \
    'int host_value(int x) { return x * 3 + 1; }' > k.cu
}
compile_as() {  # launcher|graph ARGS...: compiles here with the launcher or `fastcuda build`
  local mode=$1; shift
  if [ "$mode" = launcher ]; then
    "$FASTCUDA" "$NVCC" "$@"
  else
    printf '[{"directory": "%s", "file": "k.cu", "command": "%s %s"}]\n' "$PWD" "$NVCC" "$*" > db.json
    "$FASTCUDA" build --compdb db.json --out graph > build.log 2>&1
  fi
}
host_code() {  # OBJECT: its host code and the compiler that wrote it (.comment)
  objcopy -O binary --only-section=.text "$1" "$1.text" && od -An -tx1 "$1.text" &&
    readelf -p .comment "$1" | grep -F '['
}
fresh() {  # ARGS...: k.o equals what nvcc writes now from ARGS, host code and compiler included
  "$NVCC" "$@" -o reference.o && same_object k.o reference.o &&
    cmp -s <(host_code k.o) <(host_code reference.o)
}

# a. PTXAS_FLAGS (appended to ptxas's command by nvcc.profile) set after a
# build, with the source touched: the dryrun that lacks it is not reused.
ptxas_flags() (  # launcher|graph
  mkdir -p "ptxas-$1" && cd "ptxas-$1"
  kernel && compile_as "$1" "${arch[@]}" -c k.cu -o k.o && touch k.cu &&
    PTXAS_FLAGS=-O0 compile_as "$1" "${arch[@]}" -c k.cu -o k.o &&
    PTXAS_FLAGS=-O0 fresh "${arch[@]}" -c k.cu
)
check "build: PTXAS_FLAGS set after a build, source touched: fresh" ptxas_flags graph

# a2. The same for an entry that `fastcuda build` leaves to nvcc whole
# (-keep): its one step reruns, nothing touched.
ptxas_flags_whole() (
  mkdir -p ptxas-whole && cd ptxas-whole
  local flags=("${arch[@]}" -keep -c k.cu)
  kernel && compile_as graph "${flags[@]}" -o k.o && grep -q "nvcc runs whole for k.cu" build.log &&
    PTXAS_FLAGS=-O0 compile_as graph "${flags[@]}" -o k.o && PTXAS_FLAGS=-O0 fresh "${flags[@]}"
)
check "build: PTXAS_FLAGS set after a build of an entry nvcc runs whole: fresh" ptxas_flags_whole

# b. The host compiler behind a fixed -ccbin path switched from g++ to
# clang++ (cudafe++ then takes --clang_version, not --gnu_version), nothing
# else changed.
switched_compiler() (  # graph
  mkdir -p "switched-$1/cc" && cd "switched-$1"
  kernel && ln -s /usr/bin/g++ cc/c++
  local flags=("${arch[@]}" -ccbin "$PWD/cc/c++" -c k.cu)
  compile_as "$1" "${flags[@]}" -o k.o && ln -sfn /usr/bin/clang++ cc/c++ &&
    compile_as "$1" "${flags[@]}" -o k.o && fresh "${flags[@]}"
)
# (The launcher runs a dryrun in every call: the new compiler's commands
# differ, and so run.)
if command -v clang++ > /dev/null; then
  check "build: the compiler behind -ccbin switched from g++ to clang++: fresh" switched_compiler graph
fi

# c. The host compiler changed in place, as an upgrade within one family
# does: same name, same version to nvcc (the dryrun's commands come out the
# same), other code. The directory given to -ccbin (nvcc runs its gcc)
# holds a gcc that optimises its compiles from the second build on.
upgraded_compiler() (  # launcher|graph
  mkdir -p "upgraded-$1/cc" && cd "upgraded-$1"
  kernel
  local flags=("${arch[@]}" -ccbin cc -c k.cu)
  gcc_script() {  # FLAGS: cc/gcc, which adds FLAGS to the compiles (-c), not to the preprocessing
    printf '#!/bin/sh\ncase " $* " in *" -c "*) exec g++ %s "$@" ;; esac\nexec g++ "$@"\n' "$1" > cc/gcc.new &&
      chmod +x cc/gcc.new && mv cc/gcc.new cc/gcc
  }
  gcc_script -O0 && compile_as "$1" "${flags[@]}" -o k.o && gcc_script -O2 &&
    compile_as "$1" "${flags[@]}" -o k.o && fresh "${flags[@]}"
)
check "build: the compiler behind -ccbin upgraded in place: fresh" upgraded_compiler graph
check "launcher: the compiler behind -ccbin upgraded in place: fresh" upgraded_compiler launcher

# d. The same through `fastcuda ninja` on a hand-written manifest.
ninja_change() (  # switch|ptxas: the compiler behind -ccbin switched, or PTXAS_FLAGS set
  mkdir -p "ninja-$1/cc" && cd "ninja-$1"
  kernel && ln -s /usr/bin/g++ cc/c++
  local flags=("${arch[@]}" -ccbin "$PWD/cc/c++" -c k.cu)
  printf 'rule nvcc\n  command = %s %s -o $out\nbuild k.o: nvcc k.cu\n' "$NVCC" "${flags[*]}" > build.ninja
  "$FASTCUDA" ninja > build.log 2>&1 || return 1
  if [ "$1" = switch ]; then ln -sfn /usr/bin/clang++ cc/c++; else export PTXAS_FLAGS=-O0; fi
  "$FASTCUDA" ninja > build.log 2>&1 && fresh "${flags[@]}"
)
if command -v clang++ > /dev/null; then
  check "fastcuda ninja: the compiler behind -ccbin switched from g++ to clang++: fresh" ninja_change switch
  check "fastcuda ninja: PTXAS_FLAGS set after a build: fresh" ninja_change ptxas
fi

# e. The same through the CMake module (Ninja): CMAKE_CUDA_HOST_COMPILER a
# symlink switched to clang++, then PTXAS_FLAGS set, each with nothing else
# changed; a plain CMake build that compiles anew is the reference.
module_case() {  # WHAT: the module's k.cu.o is the plain build's, after both built
  cmake --build module/plain --clean-first > module/plain.log 2>&1 &&
    cmake --build module/fast > module/fast.log 2>&1 &&
    local objects=(module/fast/CMakeFiles/k.dir/k.cu.o module/plain/CMakeFiles/k.dir/k.cu.o) &&
    same_object "${objects[@]}" && cmp -s <(host_code "${objects[0]}") <(host_code "${objects[1]}")
}
if command -v clang++ > /dev/null && command -v cmake > /dev/null; then
  mkdir -p module/project module/cc && (cd module/project && kernel)
  printf '%s\n' 'cmake_minimum_required(VERSION 3.25)' 'project(toolchain LANGUAGES CUDA)' \
    'add_library(k OBJECT k.cu)' > module/project/CMakeLists.txt
  ln -s /usr/bin/g++ module/cc/c++
  configured=0
  for build in plain fast; do
    module=()
    [ "$build" = plain ] || module=(-DCMAKE_PROJECT_INCLUDE="$here/../../cmake/FastCuda.cmake" -DFASTCUDA_EXECUTABLE="$FASTCUDA")
    cmake -S module/project -B "module/$build" -G Ninja -DCMAKE_CUDA_COMPILER="$NVCC" -DCMAKE_CUDA_ARCHITECTURES=80 \
      -DCMAKE_CUDA_HOST_COMPILER="$PWD/module/cc/c++" "${module[@]}" > "module/$build.cfg.log" 2>&1 ||
      configured=1
  done
  record $configured "module: configured with a host compiler behind a symlink"
  module_case "first build" > /dev/null 2>&1 || true
  ln -sfn /usr/bin/clang++ module/cc/c++
  check "module: CMAKE_CUDA_HOST_COMPILER's symlink switched from g++ to clang++: fresh" module_case
  export PTXAS_FLAGS=-O0
  check "module: PTXAS_FLAGS set: fresh" module_case
  unset PTXAS_FLAGS
fi

finish

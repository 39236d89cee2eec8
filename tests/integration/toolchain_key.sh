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

# nvcc's object for the arguments of a case, written once (here) to
# refs/NAME.o and compared with each way's that has the same arguments and
# the same toolchain (CI's 2 cores: each nvcc compile is 2 CPU s). k.cu has
# no anonymous namespace, so nvcc's object does not depend on the directory
# it compiles in.
mkdir -p refs
fresh_as() {  # NAME ARGS...: k.o equals refs/NAME.o, what nvcc writes now from ARGS (if not written yet)
  local name=$1; shift
  [ -f "$scratch/refs/$name.o" ] || "$NVCC" "$@" -o "$scratch/refs/$name.o" || return 1
  same_object k.o "$scratch/refs/$name.o" && cmp -s <(host_code k.o) <(host_code "$scratch/refs/$name.o")
}

# a. PTXAS_FLAGS (appended to ptxas's command by nvcc.profile) set after a
# build, with the source touched: the dryrun that lacks it is not reused.
# b. The host compiler behind a fixed -ccbin path switched from g++ to
# clang++ (cudafe++ then takes --clang_version, not --gnu_version), nothing
# else changed. `fastcuda build` and (d) `fastcuda ninja` on a hand-written
# manifest each build k.cu with g++, then with clang++ (b), then with
# PTXAS_FLAGS (a; `fastcuda ninja` without touching the source): one build
# directory serves both checks, and both ways share the -ccbin path and the
# references. (The launcher runs a dryrun in every
# call: the new compiler's commands differ, and so run.) Without clang++ the
# compiler stays g++.
mkdir -p cc
ccbin=(-ccbin "$scratch/cc/c++")
have_clang=false
if command -v clang++ > /dev/null; then have_clang=true; fi
toolchain_build() {  # graph|ninja: builds k.cu in the way's directory
  if [ "$1" = graph ]; then
    compile_as graph "${arch[@]}" "${ccbin[@]}" -c k.cu -o k.o
  else
    "$FASTCUDA" ninja > build.log 2>&1
  fi
}
first_toolchain_build() (  # graph|ninja
  mkdir -p "$1" && cd "$1" && kernel && ln -sfn /usr/bin/g++ "$scratch/cc/c++" &&
    printf 'rule nvcc\n  command = %s %s -o $out\nbuild k.o: nvcc k.cu\n' "$NVCC" "${arch[*]} ${ccbin[*]} -c k.cu" \
      > build.ninja &&
    toolchain_build "$1"
)
switched_compiler() (  # graph|ninja
  cd "$1" && ln -sfn /usr/bin/clang++ "$scratch/cc/c++" && toolchain_build "$1" &&
    fresh_as clang "${arch[@]}" "${ccbin[@]}" -c k.cu
)
ptxas_flags() (  # graph|ninja
  cd "$1" && { [ "$1" = ninja ] || touch k.cu; } && export PTXAS_FLAGS=-O0 && toolchain_build "$1" &&
    fresh_as ptxas "${arch[@]}" "${ccbin[@]}" -c k.cu
)
for way in graph ninja; do
  first_toolchain_build "$way" || record 1 "$way: first build with g++"
  if [ "$way" = graph ]; then name=build; else name="fastcuda ninja"; fi
  if $have_clang; then
    check "$name: the compiler behind -ccbin switched from g++ to clang++: fresh" switched_compiler "$way"
  fi
  if [ "$way" = graph ]; then
    check "build: PTXAS_FLAGS set after a build, source touched: fresh" ptxas_flags graph
  else
    check "fastcuda ninja: PTXAS_FLAGS set after a build: fresh" ptxas_flags ninja
  fi
done

# a2. The same for an entry that `fastcuda build` leaves to nvcc whole
# (-keep): its one step reruns, nothing touched.
ptxas_flags_whole() (
  mkdir -p ptxas-whole && cd ptxas-whole
  local flags=("${arch[@]}" -keep -c k.cu)
  kernel && compile_as graph "${flags[@]}" -o k.o && grep -q "nvcc runs whole for k.cu" build.log &&
    PTXAS_FLAGS=-O0 compile_as graph "${flags[@]}" -o k.o && PTXAS_FLAGS=-O0 fresh "${flags[@]}"
)
check "build: PTXAS_FLAGS set after a build of an entry nvcc runs whole: fresh" ptxas_flags_whole

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
    compile_as "$1" "${flags[@]}" -o k.o && fresh_as upgraded "${flags[@]}"
)
# (Both ways' cc/gcc are the same script: one reference.)
check "build: the compiler behind -ccbin upgraded in place: fresh" upgraded_compiler graph
check "launcher: the compiler behind -ccbin upgraded in place: fresh" upgraded_compiler launcher

# e. The same through the CMake module (Ninja): CMAKE_CUDA_HOST_COMPILER a
# symlink switched to clang++, then PTXAS_FLAGS set, each with nothing else
# changed; the reference is what the compile command (compile_commands.json)
# writes when run anew.
module_object=module/build/CMakeFiles/k.dir/k.cu.o
module_case() {  # NAME: the module builds; its k.cu.o is what the compile command writes now (module/NAME.o)
  local command
  cmake --build module/build > module/build.log 2>&1 &&
    command=$(jq -r '.[] | select(.file | endswith("k.cu")) | .command' module/build/compile_commands.json) &&
    (cd module/build && eval "${command/ -o CMakeFiles\/k.dir\/k.cu.o/ -o ../$1.o}") &&
    same_object "$module_object" "module/$1.o" && cmp -s <(host_code "$module_object") <(host_code "module/$1.o")
}
if $have_clang && command -v cmake > /dev/null && command -v jq > /dev/null; then
  mkdir -p module/project module/cc && (cd module/project && kernel)
  printf '%s\n' 'cmake_minimum_required(VERSION 3.25)' 'project(toolchain LANGUAGES CUDA)' \
    'add_library(k OBJECT k.cu)' > module/project/CMakeLists.txt
  ln -s /usr/bin/g++ module/cc/c++
  configured=0
  cmake -S module/project -B module/build -G Ninja -DCMAKE_CUDA_COMPILER="$NVCC" -DCMAKE_CUDA_ARCHITECTURES=80 \
    -DCMAKE_CUDA_HOST_COMPILER="$PWD/module/cc/c++" \
    -DCMAKE_PROJECT_INCLUDE="$here/../../cmake/FastCuda.cmake" -DFASTCUDA_EXECUTABLE="$FASTCUDA" \
    > module/configure.log 2>&1 || configured=1
  record $configured "module: configured with a host compiler behind a symlink"
  cmake --build module/build > module/build.log 2>&1 || true
  ln -sfn /usr/bin/clang++ module/cc/c++
  check "module: CMAKE_CUDA_HOST_COMPILER's symlink switched from g++ to clang++: fresh" module_case clang
  export PTXAS_FLAGS=-O0
  check "module: PTXAS_FLAGS set: fresh" module_case ptxas
  unset PTXAS_FLAGS
fi

finish

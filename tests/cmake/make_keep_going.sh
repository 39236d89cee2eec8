#!/usr/bin/env bash
# `make -k` through cmake/FastCuda.cmake with the Unix Makefiles generator,
# as without it: one TU of three that does not compile fails its own object,
# with nvcc's message under that object's rule, and make builds the other
# two. Then, after a build of all three, an edit that fails only in ptxas
# (its cicc and the object's host compile would still run): make -k fails
# that object rather than taking the graph's older object for it, and the
# others stay built.
#
# usage: make_keep_going.sh FASTCUDA_SOURCE_DIR FASTCUDA_BUILD_DIR
set -euo pipefail
source_dir=$(realpath "$1"); build_dir=$(realpath "$2")
source "$source_dir/tests/integration/checks.sh" make_keep_going "$build_dir/bin/fastcuda"

project="$scratch/project"
mkdir -p "$project"
cat > "$project/CMakeLists.txt" <<'EOF'
cmake_minimum_required(VERSION 3.25)
project(keep_going LANGUAGES CUDA)
# Three TUs: the failing one has a TU to build before it and one after it
# in make's order (each TU costs two CPU seconds of CI's short time).
add_library(three STATIC t1.cu t2.cu t3.cu)
EOF
write_tu() {  # N BODY: tN.cu with a kernel whose body is BODY
  printf '__global__ void k%s(float *x) { %s }\nvoid run%s(float *x) { k%s<<<1, 32>>>(x); }\n' \
    "$1" "$2" "$1" "$1" > "$project/t$1.cu"
}
for i in 1 2 3; do write_tu "$i" "x[threadIdx.x] *= $i;"; done
write_tu 2 'x[0] = ;'  # a front-end error: cudafe++ fails
build="$scratch/make"
cmake -S "$project" -B "$build" -G "Unix Makefiles" -DCMAKE_CUDA_ARCHITECTURES=80 \
  -DCMAKE_PROJECT_INCLUDE="$source_dir/cmake/FastCuda.cmake" -DFASTCUDA_EXECUTABLE="$FASTCUDA" \
  > "$scratch/configure.log"
objects="$build/CMakeFiles/three.dir"

make_k() {  # LOG: make -k -j2 in the build directory; its status
  make -C "$build" -k -j2 > "$1" 2>&1
}
others_built() {  # every object but t2's
  local i
  for i in 1 3; do [ -s "$objects/t$i.cu.o" ] || { echo "  no t$i.cu.o"; return 1; }; done
}
only_t2_fails() {  # LOG STATUS ERROR-RE: make failed, t2's rule said ERROR-RE, the others are built
  [ "$2" -ne 0 ] && grep -Eq "$3" "$1" && grep -q 't2\.cu\.o\] Error' "$1" && others_built ||
    { echo "  make -k: status $2"; sed 's/^/    /' "$1"; return 1; }
}

front_end_error() {
  local rc=0
  make_k "$scratch/first.log" || rc=$?
  only_t2_fails "$scratch/first.log" "$rc" 't2\.cu\(1\): error'
}
check "make -k: a TU that does not compile fails its own object, the other two are built" front_end_error

write_tu 2 "x[threadIdx.x] *= 2;"
all_three() { make_k "$scratch/all.log" && [ -s "$objects/t2.cu.o" ] && others_built; }
check "make -k: fixed, all three objects are built" all_three

ptxas_error() {
  local rc=0
  write_tu 2 'asm volatile("not_an_instruction;");'  # cicc passes it on, ptxas rejects it
  make_k "$scratch/ptxas.log" || rc=$?
  only_t2_fails "$scratch/ptxas.log" "$rc" 'ptxas.*error'
}
check "make -k: a TU whose ptxas fails is not taken from the graph's older object" ptxas_error

finish

#!/usr/bin/env bash
# Building part of a project through cmake/FastCuda.cmake (Ninja generator)
# runs only the graph's steps it needs, as an IDE's "compile this file" and
# `cmake --build --target` expect: one object (by path, and by Ninja's
# SOURCE^ as IDEs name it) runs its TU's steps and no other's; one target
# runs the steps of its TUs only; the objects have the device code and
# symbols of a plain CMake build's; the full build then builds the rest, and
# a build with nothing to do runs no step.
#
# usage: compile_one.sh FASTCUDA_SOURCE_DIR FASTCUDA_BUILD_DIR
set -euo pipefail
source_dir=$(realpath "$1"); build_dir=$(realpath "$2")
source "$source_dir/tests/integration/checks.sh" compile_one "$build_dir/bin/fastcuda"

example="$scratch/particles"
cp -r "$source_dir/examples/particles" "$example"
plain="$scratch/plain" fc="$scratch/fc"
# One build directory, so that CMake detects the compilers (several nvcc
# runs) once: configured without FastCuda it builds the reference objects,
# copied to $plain; cleaned, it is configured again with the module
# injected, and each check starts there from no object built.
cmake -S "$example" -B "$fc" -G Ninja -DCMAKE_CUDA_ARCHITECTURES=80-real > "$plain.configure.log" 2>&1
ninja -C "$fc" > "$plain.log" 2>&1
mkdir -p "$plain"
(cd "$fc" && find . -name '*.cu.o' -exec cp --parents {} "$plain" \;)
ninja -C "$fc" -t clean > /dev/null
cmake -S "$example" -B "$fc" -G Ninja -DCMAKE_CUDA_ARCHITECTURES=80-real \
  -DCMAKE_PROJECT_INCLUDE="$source_dir/cmake/FastCuda.cmake" -DFASTCUDA_EXECUTABLE="$FASTCUDA" > "$fc.configure.log" 2>&1
physics=CMakeFiles/particles_physics.dir/src

# The TUs (object file names) whose steps ran since the graph's log had MARK lines.
tus_run_since() {  # MARK
  tail -n +"$(($1 + 1))" "$fc/fastcuda/.ninja_log" | awk -F'\t' '{ print $4 }' |
    sed -n -e 's|.*/fastcuda/tu/\([^/]*\)-[0-9a-f]*/.*|\1|p' -e 's|.*/\([^/]*\.cu\.o\)$|\1|p' | sort -u | tr '\n' ' '
}
cuda_objects() { find "$fc" -name '*.cu.o' -not -path '*/fastcuda/*' -printf '%P\n' | sort | tr '\n' ' '; }
same_as_plain() {  # OBJECT...: device code and symbols equal the plain build's
  local object
  for object in "$@"; do
    same_object "$fc/$object" "$plain/$object" || { echo "  differs: $object"; return 1; }
  done
}
build() {  # ARGS...: ninja in the FastCuda build; sets `mark` to the graph log's lines before it
  mark=$(graph_log_mark "$fc/fastcuda")
  ninja -C "$fc" "$@" > "$scratch/build.log" 2>&1
}

one_object() {
  build "$physics/forces.cu.o" && [ "$(tus_run_since "$mark")" = "forces.cu.o " ] &&
    [ "$(cuda_objects)" = "$physics/forces.cu.o " ] && same_as_plain "$physics/forces.cu.o"
}
check "one object: only its TU's steps ran, no other object was built, it is nvcc's" one_object

by_source() {
  build "$example/src/main.cu^" && [ "$(tus_run_since "$mark")" = "main.cu.o " ] &&
    [ "$(cuda_objects)" = "CMakeFiles/particles.dir/src/main.cu.o $physics/forces.cu.o " ] &&
    same_as_plain CMakeFiles/particles.dir/src/main.cu.o
}
check "one object named by SOURCE^ (IDEs): only its TU's steps ran, it is nvcc's" by_source

one_target() {
  cmake --build "$fc" --target particles_physics > "$scratch/build.log" 2>&1 &&
    [ "$(tus_run_since "$mark")" = "integrate.cu.o " ] &&
    [ "$(cuda_objects)" = "CMakeFiles/particles.dir/src/main.cu.o $physics/forces.cu.o $physics/integrate.cu.o " ] &&
    same_as_plain "$physics/integrate.cu.o" "$physics/forces.cu.o" && [ -f "$fc/libparticles_physics.a" ]
}
mark=$(graph_log_mark "$fc/fastcuda")
check "one target: only the steps of its TU that was not built yet ran; its objects are nvcc's" one_target

the_rest() {
  build && [ "$(tus_run_since "$mark")" = "build_info.cu.o field.cu.o stats.cu.o " ] &&
    [ "$(find "$fc" -name '*.cu.o' -not -path '*/fastcuda/*' | wc -l)" -eq 7 ] &&
    same_as_plain CMakeFiles/particles.dir/build_info.cu.o rdc/CMakeFiles/particles_rdc.dir/field.cu.o \
      rdc/CMakeFiles/particles_rdc.dir/stats.cu.o stats/CMakeFiles/particles_stats.dir/stats.cu.o
}
check "the full build then builds the other TUs in the graph, as nvcc would" the_rest
nothing_to_do() {  # says why Ninja found work, if it did
  build -d explain || return 1
  if grep -q "Building\|Linking" "$scratch/build.log"; then grep "explain\|Building\|Linking" "$scratch/build.log"; return 1; fi
  [ "$(graph_log_mark "$fc/fastcuda")" = "$mark" ]
}
check "a build with nothing to do builds nothing and runs no step of the graph" nothing_to_do

# A header and a source that the build generates: the graph's first run,
# started by another target's object, meets them missing; the TUs that read
# them build once CMake has generated them (their own launchers build them in
# the graph).
generated="$scratch/generated"
mkdir -p "$generated"
cat > "$generated/CMakeLists.txt" <<'CMAKE'
cmake_minimum_required(VERSION 3.25)
project(generated LANGUAGES CUDA)
add_custom_command(OUTPUT "${CMAKE_BINARY_DIR}/gen.h"
  COMMAND sh -c "sleep 3; echo '#define GENERATED 7' > gen.h" VERBATIM)
add_library(early STATIC early.cu)
add_custom_command(OUTPUT "${CMAKE_BINARY_DIR}/made.cu"
  COMMAND sh -c "sleep 3; printf '__global__ void made(int *p) { p[0] = 8; }\\n' > made.cu" VERBATIM)
add_library(late STATIC late.cu "${CMAKE_BINARY_DIR}/gen.h" "${CMAKE_BINARY_DIR}/made.cu")
target_include_directories(late PRIVATE "${CMAKE_BINARY_DIR}")
CMAKE
printf '__global__ void early(int *p) { p[0] = 1; }\n' > "$generated/early.cu"
printf '#include "gen.h"\n__global__ void late(int *p) { p[0] = GENERATED; }\n' > "$generated/late.cu"
# (Its build directory takes the compilers CMake found for the example's:
# CMake's compiler checks, 4 s of CPU, are CMake's own.)
generated_header() {
  cmake -S "$generated" -B "$generated/build" -G Ninja -DCMAKE_CUDA_ARCHITECTURES=80-real \
    -DCMAKE_PROJECT_INCLUDE="$source_dir/cmake/FastCuda.cmake" -DFASTCUDA_EXECUTABLE="$FASTCUDA" \
    $(known_compilers "$fc" "$generated/build") > /dev/null &&
    ninja -C "$generated/build" -j 2 > "$generated/build.log" 2>&1 &&
    [ -f "$generated/build/CMakeFiles/late.dir/late.cu.o" ] && [ -z "$(find "$generated/build" -name .fastcuda)" ] &&
    graph_wrote_objects "$generated/build" && nm -C "$generated/build/CMakeFiles/late.dir/made.cu.o" | grep -q 'made(int\*)'
}
check "a TU that includes a header the build generates, and a generated .cu, build through the graph" generated_header
finish

#!/usr/bin/env bash
# cmake/FastCuda.cmake against real CMake and nvcc, on a scratch copy of
# examples/particles: the generators (Ninja, Unix Makefiles, Ninja
# Multi-Config), device code equal to a plain build's, the launcher's fast
# path, no work on a second build, edits (header touch, flags change, new
# source), fastcuda_exclude, injection into an unmodified project that
# enables CUDA after project(), add_subdirectory of the FastCuda source tree,
# and find_package of an installed FastCuda.
#
# usage: cmake_integration.sh FASTCUDA_SOURCE_DIR FASTCUDA_BUILD_DIR
set -euo pipefail
source_dir=$(realpath "$1"); build_dir=$(realpath "$2")
source "$source_dir/tests/integration/checks.sh" cmake_integration "$build_dir/bin/fastcuda"
tool=$FASTCUDA
# One architecture: these checks are about CMake and the module (each build
# of the example compiles every TU, and CI's 15 minutes are short); the
# graph's handling of several, and of PTX-only targets, is the integration
# tests' (flag_matrix, global_graph, launchers).
archs="80-real"

example="$scratch/particles"
cp -r "$source_dir/examples/particles" "$example"

# Every build directory but the plain one, of the example and of the late
# and consumer projects below (all enable CXX, whose CMakeCXXCompiler.cmake
# names the archiver and ranlib, and CUDA), takes the compilers CMake found
# there (known_compilers): CMake's compiler checks, 4 s of CPU a configure,
# are CMake's own; the module still configures in each.
configure() {  # BUILD-DIR GENERATOR [ARGS...]
  local dir=$1 generator=$2; shift 2
  cmake -S "$example" -B "$dir" -G "$generator" -DCMAKE_CUDA_ARCHITECTURES="$archs" \
    $(known_compilers "$scratch/plain" "$dir") "$@" > "$dir.configure.log" 2>&1
}
build() {  # BUILD-DIR [ARGS...]: logs to BUILD-DIR.log, marks the graph's log
  local dir=$1; shift
  graph_log_mark "$dir/fastcuda" > "$dir.mark"
  cmake --build "$dir" -j 2 "$@" > "$dir.log" 2>&1
}
graph_ran_in_build() {  # BUILD-DIR RE: the last build ran a step of the graph described by RE
  graph_ran "$1/fastcuda" "$(cat "$1.mark")" "$2"
}
with_fastcuda=(-DCMAKE_PROJECT_INCLUDE="$source_dir/cmake/FastCuda.cmake" -DFASTCUDA_EXECUTABLE="$tool")

device_code() {  # OBJECT: prints the device code sections' bytes as hex
  objcopy -O binary --only-section=.nv_fatbin --only-section=__nv_relfatbin "$1" "$scratch/section"
  od -An -tx1 "$scratch/section" | tr -d ' \n'
}
same_objects() {  # DIR-A DIR-B [CONFIG]: every CUDA object of A has B's device code
  local a=$1 b=$2 config=${3:-} count=0 object other
  while IFS= read -r object; do
    other="${object#"$a/"}"
    [ -z "$config" ] || other="${other/.dir\//.dir/$config/}"
    [ "$(device_code "$object")" = "$(device_code "$b/$other")" ] || { echo "  differs: $other"; return 1; }
    count=$((count + 1))
  done < <(find "$a" -name '*.cu.o' -not -path '*/fastcuda/*')
  [ "$count" -ge 6 ]
}
no_private_work_dirs() { [ -z "$(find "$1" -name .fastcuda -type d)" ]; }
first_phase_ran() {  # GRAPH-DIR YES|NO: whether its first build ran a first phase before its estimates (a
  # first build ranked by remembered step times appends them right after the log's header)
  local begin header
  begin=$(cut -d' ' -f1 "$1/first-phase") header=$(head -1 "$1/.ninja_log" | wc -c)
  if [ "$2" = yes ]; then [ "$begin" -gt "$header" ]; else [ "$begin" -eq "$header" ]; fi
}
ranked_then_every_step_once() { every_step_once "$1" && first_phase_ran "$@"; }
# The object's edge: under make described as CMake's rule for the object.
object_edge='(HOST_CC|Building CUDA object) .*'
graph_built_everything() {
  graph_ran_in_build "$1" "${object_edge}main.cu" && graph_ran_in_build "$1" "${object_edge}build_info.cu"
}

configure "$scratch/plain" Ninja
build "$scratch/plain"

# The example has more TUs than twice this machine's cores, where a first
# build weighs its TUs only when asked.
export FASTCUDA_FIRST_PHASE=on
for generator in "Ninja" "Unix Makefiles" "Ninja Multi-Config"; do
  dir="$scratch/fc-${generator// /-}"
  configure "$dir" "$generator" "${with_fastcuda[@]}"
  build "$dir"
  config=""
  [ "$generator" != "Ninja Multi-Config" ] || config=Debug
  check "$generator: the graph builds every TU" graph_built_everything "$dir"
  check "$generator: device code equals the plain build's" same_objects "$scratch/plain" "$dir" $config
  check "$generator: the launcher used the graph's objects" no_private_work_dirs "$dir"
  check "$generator: the program links" test -x "$(find "$dir" -name particles -type f -perm -u+x | head -1)"
  # (Multi-Config builds one configuration of the graph: no build of every TU, no first phase.)
  # The Ninja build is the first of these sources; the Makefiles build finds
  # its step times remembered (FASTCUDA_STEP_HISTORY, checks.sh).
  if [ "$generator" = Ninja ]; then
    check "$generator: the first build weighed each TU's device code first, then ran every step once" \
      ranked_then_every_step_once "$dir/fastcuda" yes
  elif [ "$generator" = "Unix Makefiles" ]; then
    check "$generator: the first build was ranked by the step times the Ninja build left (no first phase)" \
      ranked_then_every_step_once "$dir/fastcuda" no
  fi
done
unset FASTCUDA_FIRST_PHASE
only_debug_built() { [ -z "$(find "$scratch/fc-Ninja-Multi-Config" -path '*/Release/*' -name '*.cu.o')" ]; }
check "Ninja Multi-Config: the graph builds only the configuration being built" only_debug_built
# Before the edits below: the example is as shipped.
modes() {  # the critical-path modes as cache variables reach the graph; rdc still links
  # (In the plain build's directory, which no check reads any more, configured
  # again with the module: its CMake has detected the compilers already.)
  local dir="$scratch/plain"
  cmake -S "$example" -B "$dir" -G Ninja -DCMAKE_CUDA_ARCHITECTURES="$archs" "${with_fastcuda[@]}" \
    -DFASTCUDA_MODULE_ID=own -DFASTCUDA_SPLIT_COMPILE=2 -DFASTCUDA_EARLY_HOST=on > "$dir.modes-configure.log" 2>&1 &&
    build "$dir" &&
    grep -Eq '^build [^:]*\.module_id: MODULE_ID' "$dir/fastcuda/build.ninja" &&
    grep -Eq '^build [^:]*\.o: EMBED_FATBIN ' "$dir/fastcuda/build.ninja" &&
    grep -q -- '-split-compile 2' "$dir/fastcuda/build.ninja" &&
    no_private_work_dirs "$dir" &&
    test -x "$(find "$dir" -name particles -type f -perm -u+x | head -1)"
}
check "FASTCUDA_MODULE_ID=own, FASTCUDA_SPLIT_COMPILE=2, FASTCUDA_EARLY_HOST=on: the graph uses them, the program links" modes

ninja_dir="$scratch/fc-Ninja"
cache_names() {  # LIST-OPTION: the module's cache variables that cmake LIST-OPTION shows
  cmake -N "$1" "$ninja_dir" | sed -n 's/^\(_*FASTCUDA_[A-Z_]*\):.*/\1/p' | tr '\n' ' '
}
advanced_variables() {
  [ "$(cache_names -L)" = "FASTCUDA_ENABLE FASTCUDA_JOBS " ] &&
    [ "$(cache_names -LA)" = "FASTCUDA_EARLY_HOST FASTCUDA_ENABLE FASTCUDA_EXECUTABLE FASTCUDA_JOBS FASTCUDA_MODULE_ID FASTCUDA_REMOTE FASTCUDA_SPLIT_COMPILE " ]
}
check "cache: all but FASTCUDA_ENABLE and FASTCUDA_JOBS are advanced" advanced_variables
old_cmake_refused() {  # a CMAKE_VERSION of 3.19 stands in for that CMake
  printf 'set(CMAKE_VERSION 3.19.8)\ninclude("%s")\n' "$source_dir/cmake/FastCuda.cmake" > "$scratch/old_cmake.cmake" &&
    ! cmake -P "$scratch/old_cmake.cmake" > "$scratch/old_cmake.log" 2>&1 &&
    grep -q 'FastCuda needs CMake 3.20 or newer; this is CMake 3.19.8' "$scratch/old_cmake.log"
}
check "a CMake older than 3.20 stops at the module's own error" old_cmake_refused
interleaved() {
  grep -v '^#' "$ninja_dir/fastcuda/.ninja_log" | sort -n -k1,1 | awk -F'\t' '{ split($4, p, "/tu/"); split(p[2], q, "/"); print q[1] }' |
    awk '{ if ($0 != last) { runs[$0]++; last = $0 } } END { for (tu in runs) if (runs[tu] > 1) found = 1; exit !found }'
}
check "Ninja: sub-steps of different TUs interleave in the graph's log" interleaved
second_build_idle() {  # only the toolchain check runs
  build "$ninja_dir" && ! grep -q "Building\|Linking" "$ninja_dir.log" &&
    [ "$(graph_log_mark "$ninja_dir/fastcuda")" = "$(cat "$ninja_dir.mark")" ]
}
check "Ninja: a second build does no work" second_build_idle

touch "$example/include/field.h"
# (A touch changes no preprocessed text: restat then skips the rest of their steps.)
header_touch() {
  build "$ninja_dir" && graph_ran_in_build "$ninja_dir" 'CPP_HOST .*rdc/stats.cu' &&
    ! graph_ran_in_build "$ninja_dir" 'CPP_HOST .*src/forces.cu' && no_private_work_dirs "$ninja_dir"
}
check "header touch: only the TUs that include it rerun, through the graph" header_touch
check "header touch: the build after it does no work (CMake's objects are not left older than the header)" \
  second_build_idle

printf '\n#ifdef FASTCUDA_TEST_FLAG\n__global__ void FlagSeen() {}\n#endif\n' >> "$example/src/forces.cu"
# The new flag comes from a cache variable, as with CMAKE_CUDA_FLAGS, but
# reaches one target's two TUs: the graph regenerates from the changed
# compile commands all the same, and two TUs rebuild rather than every one.
printf 'target_compile_options(particles_physics PRIVATE ${PHYSICS_FLAGS})\n' >> "$example/CMakeLists.txt"
flags_change() {
  configure "$ninja_dir" Ninja "${with_fastcuda[@]}" -DPHYSICS_FLAGS=-DFASTCUDA_TEST_FLAG && build "$ninja_dir" &&
    grep -q "Regenerating the FastCuda graph\|CUDA TUs" "$ninja_dir.log" &&
    nm -C "$ninja_dir/CMakeFiles/particles_physics.dir/src/forces.cu.o" | grep FlagSeen > /dev/null && no_private_work_dirs "$ninja_dir"
}
check "flags change: the graph regenerates and compiles with the new flag" flags_change

printf '__global__ void Extra(float *x) { x[0] = 1.f; }\n' > "$example/src/extra.cu"
sed -i 's|src/integrate.cu src/forces.cu|src/integrate.cu src/forces.cu src/extra.cu|' "$example/CMakeLists.txt"
new_source() {
  build "$ninja_dir" && graph_ran_in_build "$ninja_dir" 'HOST_CC .*src/extra.cu' &&
    [ -f "$ninja_dir/CMakeFiles/particles_physics.dir/src/extra.cu.o" ] && no_private_work_dirs "$ninja_dir"
}
check "new source: built through the graph after CMake re-runs" new_source

sed -i 's|^add_subdirectory(stats)|add_subdirectory(stats)\ninclude(FastCuda)\nfastcuda_exclude(particles_stats)|' "$example/CMakeLists.txt"
# (Both injected and included: include_guard makes the second a no-op.)
excluded() {  # nvcc rebuilds the excluded object; the next graph run leaves its source out
  configure "$ninja_dir" Ninja "${with_fastcuda[@]}" -DCMAKE_MODULE_PATH="$source_dir/cmake" && build "$ninja_dir" &&
    grep -q 'Building CUDA object stats/CMakeFiles/particles_stats.dir/stats.cu.o' "$ninja_dir.log" &&
    ! graph_ran_in_build "$ninja_dir" 'stats/stats.cu' && touch "$example/src/forces.cu" && build "$ninja_dir" &&
    graph_ran_in_build "$ninja_dir" 'CPP_HOST .*src/forces.cu' &&
    expanded_manifest "$ninja_dir/fastcuda/build.ninja" > "$scratch/expanded.ninja" &&
    ! grep -q 'stats/stats.cu' "$scratch/expanded.ninja" && grep -q 'rdc/stats.cu' "$scratch/expanded.ninja"
}
check "fastcuda_exclude on a reconfigure: nvcc builds the target's sources, the graph leaves them out" excluded

late="$scratch/late_cuda"
mkdir -p "$late"
cat > "$late/CMakeLists.txt" <<'CMAKE'
cmake_minimum_required(VERSION 3.25)
project(LateCuda LANGUAGES CXX)
enable_language(CUDA)
add_executable(late main.cu)
CMAKE
printf '#include <cstdio>\n__global__ void k() {}\nint main() { k<<<1, 1>>>(); std::puts("late"); }\n' > "$late/main.cu"
late_cuda() {
  cmake -S "$late" -B "$late/build" -G Ninja -DCMAKE_CUDA_ARCHITECTURES=80-real "${with_fastcuda[@]}" \
    $(known_compilers "$scratch/plain" "$late/build") >/dev/null &&
    build "$late/build" && graph_ran_in_build "$late/build" 'HOST_CC .*main.cu' && no_private_work_dirs "$late/build"
}
check "injection into a project that enables CUDA after project()" late_cuda

subproject="$scratch/subproject"
mkdir -p "$subproject"
cat > "$subproject/CMakeLists.txt" <<CMAKE
cmake_minimum_required(VERSION 3.25)
project(WithFastCudaSource LANGUAGES CXX CUDA)
# FastCuda's own targets as one source each: it builds in a unity build
# too (23 CPU s on 2 cores, against 40 in batches of 8).
set(CMAKE_UNITY_BUILD ON)
set(CMAKE_UNITY_BUILD_BATCH_SIZE 0)
add_subdirectory("$source_dir" fastcuda-tool)
set(CMAKE_UNITY_BUILD OFF)
include("$source_dir/cmake/FastCuda.cmake")
add_executable(late "$late/main.cu")
CMAKE
# FastCuda compiles with clang where there is one (run_all.sh installs it):
# its core at -O0 takes clang 14 two thirds of gcc 12's CPU (24 s against
# 36), and what is checked is CMake's and the module's part. A CXX other
# than the plain build's: CMake detects the compilers here.
subproject_compilers() {
  if command -v clang++ > /dev/null; then echo -DCMAKE_CXX_COMPILER=clang++
  else known_compilers "$scratch/plain" "$subproject/build"; fi
}
add_subdirectory_build() {
  cmake -S "$subproject" -B "$subproject/build" -G Ninja -DCMAKE_CUDA_ARCHITECTURES=80-real \
    $(subproject_compilers) >/dev/null &&
    build "$subproject/build" && [ -x "$subproject/build/bin/fastcuda" ] &&
    graph_ran_in_build "$subproject/build" 'HOST_CC .*main.cu'
}
# It builds FastCuda itself (half a minute of CI's 15 on 2 cores): the second pass
# (tests/pypi_tools.sh, FASTCUDA_TEST_TOOLS_DIR set) leaves it to the first.
if [ -z "${FASTCUDA_TEST_TOOLS_DIR:-}" ]; then
  check "add_subdirectory of the FastCuda source tree builds the tool and uses it" add_subdirectory_build
else
  echo "SKIP add_subdirectory of the FastCuda source tree: run in the first pass only"
fi

consumer="$scratch/consumer"
mkdir -p "$consumer"
cat > "$consumer/CMakeLists.txt" <<CMAKE
cmake_minimum_required(VERSION 3.25)
project(Consumer LANGUAGES CXX CUDA)
find_package(FastCuda REQUIRED)
include(FastCuda)
add_executable(late "$late/main.cu")
CMAKE
installed_package() {
  cmake --install "$build_dir" --prefix "$scratch/prefix" >/dev/null &&
    cmake -S "$consumer" -B "$consumer/build" -G Ninja -DCMAKE_CUDA_ARCHITECTURES=80-real \
      -DCMAKE_PREFIX_PATH="$scratch/prefix" $(known_compilers "$scratch/plain" "$consumer/build") >/dev/null &&
    grep -q "$scratch/prefix/bin/fastcuda" "$consumer/build/build.ninja" &&
    build "$consumer/build" && graph_ran_in_build "$consumer/build" 'HOST_CC .*main.cu'
}
check "cmake --install, then find_package(FastCuda) and include(FastCuda)" installed_package

finish

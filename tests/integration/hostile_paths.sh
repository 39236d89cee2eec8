#!/usr/bin/env bash
# Hostile paths: a CMake CUDA project (two TUs, a header in an include
# directory) whose source and build directories hold spaces, `:`, `#`, `(`,
# `!`, `é` and, in the build directory, `'`, `&` and `$`. Built by plain CMake
# as the reference, with the FastCuda module, by `fastcuda build --compdb` on
# the exported database, and by the launcher on one file (these two with
# FASTCUDA_EARLY_HOST=on, whose assembler reads the fatbin from a file in
# the build directory): every object has the
# reference's device code and host symbols, and editing the header rebuilds
# both TUs (depfiles with these paths work). A build directory holding `#`,
# where CMake refuses the module's custom target, builds through the launcher.
# Bytes that are not UTF-8 (a Latin-1 `caf\xe9` project, `\xff` in the build
# directories and a source's name), which CMake writes raw into its compile
# database: the module, `build --compdb` and the launcher give nvcc's objects.
#
# Characters left out, and why (none of them is FastCuda's to fix):
#   `$`, backquote, `"` anywhere nvcc sees them, `'` in an include
#     directory: nvcc prints its sub-commands for /bin/sh with the path inside
#     "..." unescaped (`$x` expands) or as "a\'b"; nvcc itself fails, and
#     FastCuda, which reads those commands as the shell does, fails alike.
#   `'` in a source path: CMake's compile_commands.json leaves the object path
#     unquoted (`-o CMakeFiles/t.dir/it's.cu.o`), which is no shell word.
#   `&`, `'`, `"`, `;`, `*`, `?`, `<`, `^` in a source or header path: Ninja
#     1.11's depfile parser splits the path there (plain CMake rebuilds such
#     TUs on every build too).
#   `#` in a source's path below the project directory: CMake keeps it in the
#     object's path and quotes the edge's DEP_FILE for the shell, so Ninja
#     finds no depfile and the header dependencies are lost (plain CMake too).
#   `,` in a source's file name: nvcc's fatbinary call reads it as a separator.
#   `"` in the build directory: CMake's own compiler checks fail.
#   `|`: Ninja cannot name such a file (FastCuda then runs nvcc whole).
#
# usage: hostile_paths.sh FASTCUDA_BINARY [NVCC]
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/checks.sh" hostile_paths "$@"
module=$(realpath "$(dirname "${BASH_SOURCE[0]}")/../../cmake/FastCuda.cmake")
PATH="$(dirname "$NVCC"):$PATH"

project="$scratch/src dir:#é(1)!=@+"
mkdir -p "$project/src/sub dir:é" "$project/inc dir#é"
cat > "$project/CMakeLists.txt" <<'CMAKE'
cmake_minimum_required(VERSION 3.25)
project(Hostile LANGUAGES CXX CUDA)
add_library(hostile STATIC "src/a kernel.cu" "src/sub dir:é/b kernel.cu")
target_include_directories(hostile PRIVATE "inc dir#é")
CMAKE
header="$project/inc dir#é/scale é.h"
printf '#pragma once\n#define SCALE 3\n' > "$header"
printf '#include "scale é.h"\n__global__ void ka(int *p) { p[threadIdx.x] = SCALE; }\nvoid la(int *p) { ka<<<1, 32>>>(p); }\n' \
  > "$project/src/a kernel.cu"
printf '#include "scale é.h"\n__global__ void kb(int *p) { p[threadIdx.x] = 2 * SCALE; }\nvoid lb(int *p) { kb<<<1, 32>>>(p); }\n' \
  > "$project/src/sub dir:é/b kernel.cu"
objects=("CMakeFiles/hostile.dir/src/a_kernel.cu.o" "CMakeFiles/hostile.dir/src/sub_dir_é/b_kernel.cu.o")

hostile="dir:é&(1)!'\$x"
plain="$scratch/plain $hostile"
with_module="$scratch/module $hostile"
database="$scratch/compdb $hostile"
hash_dir="$scratch/module#$hostile"
# Every build directory but the first takes the compilers CMake found there
# (known_compilers): CMake's compiler checks are CMake's own and not what
# these cases check; FastCuda's module still configures in each.
configure() {  # BUILD-DIR [ARGS...]: logs to BUILD-DIR.configure.log
  local dir=$1; shift
  cmake -S "$project" -B "$dir" -G Ninja -DCMAKE_CUDA_ARCHITECTURES=80-real $(known_compilers "$plain" "$dir") "$@" \
    > "$dir.configure.log" 2>&1
}
build() { cmake --build "$1" -j 2 > "$1.log" 2>&1; }  # BUILD-DIR: logs to BUILD-DIR.log
with_fastcuda=(-DCMAKE_PROJECT_INCLUDE="$module" -DFASTCUDA_EXECUTABLE="$FASTCUDA")

same_objects() {  # BUILD-DIR: every object equals the plain build's
  local object
  for object in "${objects[@]}"; do
    same_object "$1/$object" "$plain/$object" || { echo "  differs: $1/$object"; return 1; }
  done
}
no_private_work_dirs() { [ -z "$(find "$1" -name .fastcuda)" ]; }

configure "$plain"
build "$plain"
configure "$with_module" "${with_fastcuda[@]}"
configure "$database" -DCMAKE_EXPORT_COMPILE_COMMANDS=ON

module_build() {
  build "$with_module" && graph_wrote_objects "$with_module" && no_private_work_dirs "$with_module" &&
    same_objects "$with_module"
}
check "CMake module: the graph builds both TUs, objects equal plain CMake's" module_build
module_idle() { build "$with_module" && ! grep -q "Building CUDA object" "$with_module.log"; }
check "CMake module: a second build compiles nothing" module_idle

graph="$database/graph"
export FASTCUDA_EARLY_HOST=on
compdb_build() {
  "$FASTCUDA" build --compdb "$database/compile_commands.json" --out "$graph" -j 2 > "$graph.log" 2>&1 &&
    same_objects "$database" && ninja -C "$graph" -n | grep -q "no work to do" &&
    grep -q EMBED_FATBIN "$graph/build.ninja" && ! grep -q "not laid out" "$graph.log"
}
check "build --compdb: objects equal plain CMake's, a second build has no work" compdb_build

launch="$scratch/launch dir:#é&(1)!'q"
mkdir -p "$launch/ref"
launch_flags=(-I"$project/inc dir#é" -arch=sm_80 -c "$project/src/a kernel.cu" -MD -MT a.o)
depfile_words() { sed -z 's/\\\n/ /g; s/^a\.o *: //; s/\\#/#/g' "$1" | grep -oE '([^ \\]|\\.)+' | sort -u; }  # DEPFILE: its prerequisites
launched() {  # runs nvcc and the launcher on one TU; equal objects, depfile lists nvcc's
  "$NVCC" "${launch_flags[@]}" -o "$launch/ref/a kernel.o" -MF "$launch/ref/a kernel.d" &&
    "$FASTCUDA" "$NVCC" "${launch_flags[@]}" -o "$launch/a kernel.o" -MF "$launch/a kernel.d" &&
    same_object "$launch/a kernel.o" "$launch/ref/a kernel.o" &&
    [ -z "$(comm -23 <(depfile_words "$launch/ref/a kernel.d") <(depfile_words "$launch/a kernel.d"))" ] &&
    grep -qF 'inc\ dir\#é/scale\ é.h' "$launch/a kernel.d"
}
check "launcher: object equals nvcc's, depfile lists nvcc's (hostile paths escaped)" launched

checksums() {  # BUILD-DIR: one line per object
  local object
  for object in "${objects[@]}"; do cksum < "$1/$object"; done
}
module_before=$(checksums "$with_module")
sed -i 's/SCALE 3/SCALE 5/' "$header"
# The reference is built afresh: with `#` in the source's path, nvcc's own
# depfiles leave `#` unescaped, so plain CMake's header dependencies are wrong.
cmake --build "$plain" --clean-first > "$plain.log" 2>&1
header_edit() {
  build "$with_module" && paste <(echo "$module_before") <(checksums "$with_module") | awk -F'\t' '$1 == $2 { exit 1 }' &&
    same_objects "$with_module" && no_private_work_dirs "$with_module" &&
    "$FASTCUDA" build --compdb "$database/compile_commands.json" --out "$graph" -j 2 > "$graph.log" 2>&1 &&
    [ "$(grep -c 'CPP_HOST' "$graph.log")" -eq 2 ] && same_objects "$database" && launched
}
check "header edit: the module, build --compdb and the launcher rebuild both TUs as plain CMake" header_edit

hash_build() {
  configure "$hash_dir" "${with_fastcuda[@]}" && grep -q "holds '#'" "$hash_dir.configure.log" &&
    build "$hash_dir" && same_objects "$hash_dir" && ! no_private_work_dirs "$hash_dir"
}
check "a build directory holding '#': no graph target, the launcher splits each TU" hash_build


# FastCuda's JSON files (dryrun cache, nvcc.env, steps.json, records) carry
# these bytes; nlohmann::json alone rejects them.
latin1="$scratch/caf"$'\xe9'
ff=$'\xff'
mkdir -p "$latin1/src"
printf 'cmake_minimum_required(VERSION 3.25)\nproject(Latin1 LANGUAGES CXX CUDA)\n%s\n' \
  "add_library(latin1 STATIC \"src/a$ff.cu\" src/b.cu)" > "$latin1/CMakeLists.txt"
printf '__global__ void ka(int *p) { p[threadIdx.x] = 3; }\nvoid la(int *p) { ka<<<1, 32>>>(p); }\n' \
  > "$latin1/src/a$ff.cu"
printf '__global__ void kb(int *p) { p[threadIdx.x] = 4; }\nvoid lb(int *p) { kb<<<1, 32>>>(p); }\n' \
  > "$latin1/src/b.cu"
latin1_objects=("CMakeFiles/latin1.dir/src/a$ff.cu.o" "CMakeFiles/latin1.dir/src/b.cu.o")
latin1_configure() {  # BUILD-DIR [ARGS...]: logs to BUILD-DIR.configure.log
  local dir=$1; shift
  cmake -S "$latin1" -B "$dir" -G Ninja -DCMAKE_CUDA_ARCHITECTURES=80 $(known_compilers "$plain" "$dir") "$@" \
    > "$dir.configure.log" 2>&1
}
latin1_same_objects() {  # BUILD-DIR: every object equals plain CMake's
  local object
  for object in "${latin1_objects[@]}"; do
    same_object "$1/$object" "$latin1/plain$ff/$object" || { echo "  differs: $1/$object"; return 1; }
  done
}
latin1_configure "$latin1/plain$ff" && build "$latin1/plain$ff"
latin1_module() {
  local dir="$latin1/module$ff"
  latin1_configure "$dir" "${with_fastcuda[@]}" && build "$dir" &&
    graph_wrote_objects "$dir" && no_private_work_dirs "$dir" &&
    latin1_same_objects "$dir" && build "$dir" && ! grep -aq "Building CUDA object" "$dir.log"
}
check "bytes: the CMake module in a Latin-1 directory builds through the graph, objects equal plain CMake's" \
  latin1_module
latin1_compdb() {
  local dir="$latin1/compdb$ff"
  latin1_configure "$dir" -DCMAKE_EXPORT_COMPILE_COMMANDS=ON &&
    LC_ALL=C grep -aq "src/a$ff\.cu" "$dir/compile_commands.json" &&
    "$FASTCUDA" build --compdb "$dir/compile_commands.json" --out "$dir/graph" -j 2 > "$dir/graph.log" 2>&1 &&
    latin1_same_objects "$dir" && ninja -C "$dir/graph" -n | grep -q "no work to do" &&
    "$FASTCUDA" trace "$dir/graph" > "$dir/trace.json" && LC_ALL=C grep -aq "src/a$ff\.cu" "$dir/trace.json"
}
check "bytes: build --compdb on CMake's raw-byte database, objects equal plain CMake's, the trace names the file" \
  latin1_compdb
latin1_launcher() {
  local dir="$latin1/launch$ff"
  mkdir -p "$dir" && (cd "$dir" &&
    "$NVCC" -arch=sm_80 -c "$latin1/src/a$ff.cu" -o "ref$ff.o" > nvcc.log 2>&1 &&
    "$FASTCUDA" "$NVCC" -arch=sm_80 -c "$latin1/src/a$ff.cu" -o "a$ff.o" > fastcuda.log 2>&1 &&
    same_object "a$ff.o" "ref$ff.o")
}
check "bytes: the launcher in a build directory holding \\xff, objects equal nvcc's" latin1_launcher

finish

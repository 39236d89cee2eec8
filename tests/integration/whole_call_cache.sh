#!/usr/bin/env bash
# A whole-call cache (ccache on `ccache nvcc ...`, as CMAKE_CUDA_COMPILER_LAUNCHER
# or Meson set it) against real nvcc and ccache, on two TUs sharing a header,
# built for sm_80 with a depfile (-MD), through `fastcuda build --compdb`,
# the CMake module and `fastcuda ninja`:
#  cold      each TU's lookup misses, its steps run, their object is stored
#            under ccache's own key: plain `ccache nvcc` then hits it; every
#            Ninja run after the lookup pass starts with the lookups' dyndep
#            files and the priority ladder's up to date (so Ninja loads them
#            as it starts and ranks the steps they add), the ladder's listing
#            the steps of the TUs that missed
#  warm      a clean rebuild hits for every TU: no cicc, ptxas or host
#            compile runs, Ninja starts no step but the lookups, the
#            objects' copies and the depfiles' merges, objects equal nvcc's,
#            a build after has no work
#  shared    a cache that plain `ccache nvcc` filled gives FastCuda a hit for
#            every TU in a fresh build directory
#  edits     a header edit reruns the lookups, which miss: the steps make
#            objects equal to nvcc's from the new header; the edit undone,
#            the lookups (which now know the header) hit again
#  response  a response file changed after a hit: asked again, nvcc's object
#  launcher  `fastcuda ccache nvcc ...` hits what plain ccache stored, and on
#            a miss makes nvcc's object through the steps
#  CMake     the module with CMAKE_CUDA_COMPILER_LAUNCHER=ccache: after a
#            plain CMake + ccache build of the same project, every TU hits,
#            and a header edit then reaches the objects; `fastcuda ninja` on
#            that plain build directory, cleaned, hits for every nvcc edge
#  defaults  `fastcuda ninja` on a manifest without `default` statements: a
#            hit starts no step but the lookup and the object's copy
#  dry run   `ninja -n` before any lookup ran (through `fastcuda ninja`,
#            and on a generated graph) lists the steps and writes nothing
#
# usage: whole_call_cache.sh FASTCUDA_BINARY [NVCC]
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/checks.sh" whole_call_cache "$@"
source_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
if ! command -v ccache > /dev/null; then
  echo "SKIP whole_call_cache: ccache not found"
  finish
  exit 0
fi

project=$scratch/project
mkdir -p "$project/obj" "$scratch/ref"
echo '#define FACTOR 2.f' > "$project/factor.h"
cat > "$project/a.cu" <<'C'
#include "factor.h"
__global__ void ka(float *x) { x[threadIdx.x] *= FACTOR; }
void launch_a(float *x) { ka<<<1, 32>>>(x); }
C
cat > "$project/b.cu" <<'C'
#include "factor.h"
__global__ void kb(float *x) { x[threadIdx.x] += FACTOR; }
void launch_b(float *x) { kb<<<1, 32>>>(x); }
C
# One architecture: the cache keys and copies whole calls, whatever their
# steps (several architectures' chains: flag_matrix, global_graph).
archs=(-gencode arch=compute_80,code=sm_80)
tus=(a b)
nvcc_words() {  # TU OBJECT-DIR: the compile as CMake writes it, with its depfile
  echo "$NVCC ${archs[*]} -MD -MT $2/$1.o -MF $2/$1.o.d -c $1.cu -o $2/$1.o"
}
{
  echo "["
  for tu in "${tus[@]}"; do
    [ "$tu" = a ] || echo ","
    printf '{"directory": "%s", "file": "%s.cu", "output": "obj/%s.o", "command": "ccache %s"}' \
      "$project" "$tu" "$tu" "$(nvcc_words "$tu" obj)"
  done
  echo "]"
} > "$project/compile_commands.json"
reference() {  # nvcc's objects for the sources as they are now
  # Only factor.h is ever edited: nvcc's objects are kept per its text, as
  # the edits come back to an earlier one.
  local tu kept
  kept=$scratch/ref-kept/$(md5sum < "$project/factor.h" | cut -d' ' -f1)
  if [ ! -d "$kept" ]; then
    mkdir -p "$kept"
    for tu in "${tus[@]}"; do (cd "$project" && "$NVCC" "${archs[@]}" -c "$tu.cu" -o "$kept/$tu.o"); done
  fi
  cp "$kept"/*.o "$scratch/ref/"
}
same_as_nvcc() {
  local tu
  for tu in "${tus[@]}"; do same_object "$project/obj/$tu.o" "$scratch/ref/$tu.o" || return 1; done
}

export CCACHE_DIR=$scratch/ccache
# The ladder whatever Ninja's version: its rungs must not run a hit's steps.
export FASTCUDA_PRIORITY_LADDER=on
ccache_stat() { ccache --print-stats | awk -v key="$1" '$1 == key { print $2 }'; }
graph=$scratch/graph
build() {  # LOG
  "$FASTCUDA" build --compdb "$project/compile_commands.json" --out "$graph" -j 2 > "$scratch/$1" 2>&1
}
programs_run() {  # the first outputs of the steps whose program ran since the memory log had LINES lines
  tail -n "+$(($1 + 1))" "$graph/step-memory.tsv" | cut -f1 | sed 's|.*/||' | sort | uniq -c | awk '{ printf "%s %s,", $1, $2 }'
}
memory_lines() { [ -f "$graph/step-memory.tsv" ] && wc -l < "$graph/step-memory.tsv" || echo 0; }

# The first sources' reference: plain `ccache nvcc` filling an empty cache of
# its own (two misses: nvcc itself writes the objects), the cache that
# `shared` and the launcher hit below. One nvcc run a TU serves all three.
export CCACHE_DIR=$scratch/ccache-plain
first_reference=$scratch/ref-kept/$(md5sum < "$project/factor.h" | cut -d' ' -f1)  # as reference() keeps it
mkdir -p "$scratch/plain" "$first_reference"
for tu in "${tus[@]}"; do
  (cd "$project" && ccache $(nvcc_words "$tu" "$scratch/plain"))  # word-split on purpose
  cp "$scratch/plain/$tu.o" "$first_reference/"
done
[ "$(ccache_stat cache_miss)" = 2 ] && [ "$(ccache_stat direct_cache_hit)" = 0 ] ||
  { echo "plain ccache did not miss twice in an empty cache"; exit 1; }
reference
export CCACHE_DIR=$scratch/ccache
ccache -z > /dev/null
# A Ninja that, before each run on the graph but the lookup pass, notes
# whether the lookup pass would have work: "clean" means that the run loads
# every dyndep file as it starts, where its ranking sees what they add.
real_ninja=$(command -v ninja)
cat > "$scratch/probing-ninja" <<NINJA
#!/usr/bin/env bash
case " \$* " in
  *" --version "* | *" fastcuda_cache_lookups "*) ;;
  *) if "$real_ninja" -C "$graph" -n fastcuda_cache_lookups 2>&1 | grep -q "no work to do"; then
       echo clean; else echo dirty; fi >> "$scratch/probes" ;;
esac
exec "$real_ninja" "\$@"
NINJA
chmod +x "$scratch/probing-ninja"
cold() {
  FASTCUDA_NINJA=$scratch/probing-ninja build cold.log && grep -q '\] CACHE_LOOKUP ' "$scratch/cold.log" &&
    grep -q '\] CICC ' "$scratch/cold.log" && [ "$(cat "$graph"/tu/a.o-*/cache-result)" = miss ] && same_as_nvcc &&
    [ "$(ccache_stat direct_cache_hit)" = 0 ]
}
check "cold: each lookup misses, the steps build objects equal to nvcc's" cold
static_rung_inputs() {  # what the ladder's rungs name in the manifest but each other, the lookups and their dyndep file
  expanded_manifest "$graph/build.ninja" | sed -n 's|^build [^:]*/priority/rung[0-9]*: FASTCUDA_RUNG\(.*\)|\1|p' |
    tr ' ' '\n' |
    grep -Ev '^(\||\|\||)$|/priority/|/cache-result$' || true
}
cold_ranked() {
  # The first phase's run and the build's (the first phase regenerated the
  # graph with a ladder in between: the ladder's dyndep file was made anew).
  [ "$(paste -sd, "$scratch/probes")" = clean,clean ] || { echo "  probes: $(paste -sd, "$scratch/probes")"; return 1; }
  [ "$(grep -o '/tu/[ab]\.o-' "$graph/priority/dyndep" | sort -u | wc -l)" = 2 ] ||
    { echo "  the ladder's dyndep file:"; cat "$graph/priority/dyndep"; return 1; }
  [ -z "$(static_rung_inputs)" ] || { echo "  rungs name steps: $(static_rung_inputs | paste -sd' ')"; return 1; }
}
check "cold: the build's Ninja starts with every dyndep file made, the ladder's ranking the missed TUs' steps" \
  cold_ranked
plain_hits_what_fastcuda_stored() {
  local tu hits
  hits=$(ccache_stat direct_cache_hit)
  for tu in "${tus[@]}"; do
    (cd "$project" && ccache $(nvcc_words "$tu" "$scratch/plain")) || return 1  # word-split on purpose
  done
  [ "$(ccache_stat direct_cache_hit)" = $((hits + 2)) ] && same_object "$scratch/plain/a.o" "$scratch/ref/a.o"
}
mkdir -p "$scratch/plain"
check "cold: plain 'ccache nvcc' hits the objects FastCuda stored" plain_hits_what_fastcuda_stored

ran_since() {  # LINES: the outputs of the edges Ninja ran since its log had LINES lines
  tail -n "+$(($1 + 1))" "$graph/.ninja_log" | cut -f4 | sed 's|.*/||' | sort | paste -sd' '
}
warm() {
  local hits lines log_lines
  hits=$(ccache_stat direct_cache_hit)
  lines=$(memory_lines)
  ninja -C "$graph" -t recompact && log_lines=$(graph_log_mark "$graph")  # no recompaction in the build
  ninja -C "$graph" -t clean > /dev/null && build warm.log || return 1
  # Ninja started the lookups, the objects' copies, the depfiles' merges and
  # the ladder's dyndep file, no other step and no rung.
  local expected="a.o a.o.d b.o b.o.d cache-dyndep cache-dyndep cache-object.deps cache-object.deps"
  expected+=" cache-object.o cache-object.o cache-result cache-result dyndep"
  [ "$(ran_since "$log_lines")" = "$expected" ] || { echo "  Ninja ran: $(ran_since "$log_lines")"; return 1; }
  [ -z "$(static_rung_inputs)" ] || { echo "  rungs name steps: $(static_rung_inputs | paste -sd' ')"; return 1; }
  # Only the lookups ran their program (ccache); no cicc, ptxas or host compile.
  [ "$(programs_run "$lines")" = "2 cache-result," ] || { echo "  programs run: $(programs_run "$lines")"; return 1; }
  [ "$(ccache_stat direct_cache_hit)" = $((hits + 2)) ] && same_as_nvcc || return 1
  "$FASTCUDA" report "$graph" > "$scratch/warm-report.txt" && grep -q "whole-call cache: 2 of 2 TUs hit" "$scratch/warm-report.txt" &&
    log_lines=$(graph_log_mark "$graph") && build warm2.log && [ "$(graph_log_mark "$graph")" = "$log_lines" ]
}
check "warm: a clean rebuild hits for every TU (fastcuda report says so), Ninja starts no step but the lookups, copies and merges, objects equal nvcc's, then no work" warm

shared() {  # the cache that plain ccache filled first, a fresh build directory
  export CCACHE_DIR=$scratch/ccache-plain
  rm -rf "$graph" "$project"/obj/*
  ccache -z > /dev/null
  build shared.log && [ "$(ccache_stat direct_cache_hit)" = 2 ] && [ "$(programs_run 0)" = "2 cache-result," ] && same_as_nvcc
}
check "shared: a cache filled by plain ccache gives a fresh build directory a hit for every TU" shared

# The drop-in launcher, `fastcuda ccache nvcc ...` (a CMake launcher without
# the module), on the cache that plain ccache filled above (at this FACTOR).
launcher_hits() {
  local tu hits
  [ "$CCACHE_DIR" = "$scratch/ccache-plain" ] || { echo "  not the cache plain ccache filled: $CCACHE_DIR"; return 1; }
  hits=$(ccache_stat direct_cache_hit)
  mkdir -p "$scratch/launched"
  for tu in "${tus[@]}"; do
    (cd "$project" && "$FASTCUDA" ccache $(nvcc_words "$tu" "$scratch/launched")) || return 1
    same_object "$scratch/launched/$tu.o" "$scratch/ref/$tu.o" || return 1
  done
  [ "$(ccache_stat direct_cache_hit)" = $((hits + 2)) ] && grep -q 'factor\.h' "$scratch/launched/a.o.d"
}
check "launcher: 'fastcuda ccache nvcc' hits what plain ccache stored, with nvcc's object and depfile" launcher_hits
launcher_misses() {  # no lookup pass: Ninja reads the dyndep file while it runs, and only then starts the steps
  mkdir -p "$scratch/launched-miss"
  # An empty cache of its own: the checks below keep the one above.
  (cd "$project" && CCACHE_DIR=$scratch/ccache-launcher-miss "$FASTCUDA" ccache $(nvcc_words a "$scratch/launched-miss")) &&
    same_object "$scratch/launched-miss/a.o" "$scratch/ref/a.o" && grep -q 'factor\.h' "$scratch/launched-miss/a.o.d" &&
    [ -d "$scratch/ccache-launcher-miss" ]
}
check "launcher: a miss builds nvcc's object and depfile through the steps" launcher_misses

header_edit() {
  echo '#define FACTOR 3.f' > "$project/factor.h"
  reference
  build edit.log && grep -q '\] CACHE_LOOKUP ' "$scratch/edit.log" && grep -q '\] CICC ' "$scratch/edit.log" &&
    [ "$(cat "$graph"/tu/a.o-*/cache-result)" = miss ] && same_as_nvcc
}
check "edits: a header edit reruns the lookups; they miss, objects equal nvcc's from the new header" header_edit
edit_undone() {  # after a miss, the lookups know the headers the steps read: undoing the edit hits
  local lines
  lines=$(memory_lines)
  echo '#define FACTOR 2.f' > "$project/factor.h"
  reference
  build undone.log && [ "$(cat "$graph"/tu/a.o-*/cache-result)" = hit ] && same_as_nvcc &&
    [ "$(programs_run "$lines")" = "2 cache-result," ] || { echo "  programs run: $(programs_run "$lines")"; return 1; }
  echo '#define FACTOR 3.f' > "$project/factor.h"  # as the checks below expect it
  reference
}
check "edits: the edit undone, the lookups hit the objects of before; no other step runs" edit_undone

# A response file the command names: changed, the lookup asks again (the
# cache's key holds its content), never keeping the object of before.
rsp_project=$scratch/rsp
mkdir -p "$rsp_project/obj"
printf '__global__ void kc(float *x) { x[threadIdx.x] += OFFSET; }\nvoid launch_c(float *x) { kc<<<1, 32>>>(x); }\n' \
  > "$rsp_project/c.cu"
echo '-DOFFSET=1.f' > "$rsp_project/opts.rsp"
printf '[{"directory": "%s", "file": "c.cu", "output": "obj/c.o", "command": "ccache %s -optf opts.rsp %s -MD -MT obj/c.o -MF obj/c.o.d -c c.cu -o obj/c.o"}]' \
  "$rsp_project" "$NVCC" "${archs[*]}" > "$rsp_project/compile_commands.json"
rsp_build() {  # LOG
  "$FASTCUDA" build --compdb "$rsp_project/compile_commands.json" --out "$scratch/rsp-graph" -j 2 > "$scratch/$1" 2>&1
}
response_file_changed() {
  export CCACHE_DIR=$scratch/ccache-rsp
  rsp_build rsp-cold.log && ninja -C "$scratch/rsp-graph" -t clean > /dev/null && rsp_build rsp-warm.log &&
    [ "$(cat "$scratch"/rsp-graph/tu/c.o-*/cache-result)" = hit ] || { echo "  no hit before the change"; return 1; }
  sleep 1  # a coarse-mtime file system must see the response file as newer
  echo '-DOFFSET=2.f' > "$rsp_project/opts.rsp"
  (cd "$rsp_project" && "$NVCC" -optf opts.rsp "${archs[@]}" -c c.cu -o "$scratch/ref/c.o") &&
    rsp_build rsp-changed.log && same_object "$rsp_project/obj/c.o" "$scratch/ref/c.o"
}
check "a response file changed after a hit: the lookup asks again, the object is nvcc's with the new flags" \
  response_file_changed

# --- the CMake module ----------------------------------------------------------
cmake_src=$scratch/cmake-src
mkdir -p "$cmake_src"
cp "$project"/{a.cu,b.cu,factor.h} "$cmake_src/"
cat > "$cmake_src/CMakeLists.txt" <<'CMAKE'
cmake_minimum_required(VERSION 3.25)
project(cached CUDA)
add_library(cached STATIC a.cu b.cu)
CMAKE
configure() {  # DIR [ARGS...]: the second takes the first's compilers (known_compilers)
  local dir=$1
  shift
  cmake -S "$cmake_src" -B "$dir" -G Ninja -DCMAKE_CUDA_COMPILER="$NVCC" -DCMAKE_CUDA_ARCHITECTURES=80-real \
    -DCMAKE_CUDA_COMPILER_LAUNCHER=ccache $(known_compilers "$scratch/cmake-plain" "$dir") "$@" > "$dir.configure.log" 2>&1
}
module_hits_plain_cache() {
  export CCACHE_DIR=$scratch/ccache-cmake
  configure "$scratch/cmake-plain" && cmake --build "$scratch/cmake-plain" > "$scratch/cmake-plain.log" 2>&1 &&
    configure "$scratch/cmake-module" -DCMAKE_PROJECT_INCLUDE="$source_dir/cmake/FastCuda.cmake" \
      -DFASTCUDA_EXECUTABLE="$FASTCUDA" || return 1
  ccache -z > /dev/null
  cmake --build "$scratch/cmake-module" > "$scratch/cmake-module.log" 2>&1 &&
    [ "$(ccache_stat direct_cache_hit)" = 2 ] || { echo "  hits: $(ccache_stat direct_cache_hit)"; return 1; }
  local object
  for object in a b; do
    cmp -s "$scratch/cmake-plain/CMakeFiles/cached.dir/$object.cu.o" \
      "$scratch/cmake-module/CMakeFiles/cached.dir/$object.cu.o" || return 1
  done
}
module_header_edit() {  # the hit's depfile told CMake's Ninja the header: the edit reaches the object
  local object
  # Read whole: grep -q stopping at its match would end Ninja with SIGPIPE (pipefail).
  ninja -C "$scratch/cmake-module" -t deps CMakeFiles/cached.dir/a.cu.o > "$scratch/module-deps.txt" &&
    grep -q 'factor\.h$' "$scratch/module-deps.txt" || { echo "  CMake's Ninja has no deps on the header"; return 1; }
  echo '#define FACTOR 5.f' > "$cmake_src/factor.h"
  cmake --build "$scratch/cmake-plain" > "$scratch/cmake-plain2.log" 2>&1 &&
    cmake --build "$scratch/cmake-module" > "$scratch/cmake-module2.log" 2>&1 || return 1
  for object in a b; do
    same_object "$scratch/cmake-module/CMakeFiles/cached.dir/$object.cu.o" \
      "$scratch/cmake-plain/CMakeFiles/cached.dir/$object.cu.o" || return 1
  done
}
if command -v cmake > /dev/null; then
  check "CMake: the module with CMAKE_CUDA_COMPILER_LAUNCHER=ccache hits what a plain build stored" \
    module_hits_plain_cache
  check "CMake: after a hit, a header edit rebuilds both objects like plain CMake's" module_header_edit
  fastcuda_ninja_hits() {  # CMake's own manifest, split by fastcuda ninja, cleaned: its nvcc edges hit
    local object
    mkdir -p "$scratch/kept"
    cp "$scratch"/cmake-plain/CMakeFiles/cached.dir/{a,b}.cu.o "$scratch/kept/"
    ninja -C "$scratch/cmake-plain" -t clean > /dev/null
    ccache -z > /dev/null
    "$FASTCUDA" ninja -C "$scratch/cmake-plain" > "$scratch/fastcuda-ninja.log" 2>&1 &&
      grep -q '\] CACHE_LOOKUP ' "$scratch/fastcuda-ninja.log" && [ "$(ccache_stat direct_cache_hit)" = 2 ] || return 1
    for object in a b; do
      cmp -s "$scratch/kept/$object.cu.o" "$scratch/cmake-plain/CMakeFiles/cached.dir/$object.cu.o" || return 1
    done
    ninja -C "$scratch/cmake-plain" -t deps CMakeFiles/cached.dir/a.cu.o > "$scratch/plain-deps.txt" &&
      grep -q 'factor\.h$' "$scratch/plain-deps.txt"
  }
  check "fastcuda ninja: CMake's manifest with ccache, cleaned: every nvcc edge hits, ninja -t deps as before" \
    fastcuda_ninja_hits
else
  echo "SKIP CMake: cmake not found"
fi

defaultless() {  # a manifest without `default` statements, as PyTorch's setup.py writes one
  local dir=$scratch/defaultless mark
  mkdir -p "$dir"
  cp "$project"/{a.cu,factor.h} "$dir/"
  cat > "$dir/build.ninja" <<NINJA
rule nvcc
  command = ccache $NVCC ${archs[*]} -MD -MF \$out.d -c \$in -o \$out
  depfile = \$out.d
  deps = gcc
build a.o: nvcc a.cu
NINJA
  export CCACHE_DIR=$scratch/ccache-defaultless
  "$FASTCUDA" ninja -C "$dir" > "$scratch/defaultless-cold.log" 2>&1 &&
    ninja -C "$dir" -f .fastcuda/build.ninja -t clean > /dev/null && mark=$(graph_log_mark "$dir") &&
    "$FASTCUDA" ninja -C "$dir" > "$scratch/defaultless-warm.log" 2>&1 &&
    same_object "$dir/a.o" "$scratch/ref/a.o" || return 1
  # The lookups ran in a pass of their own.
  [ "$(cat "$dir/.fastcuda/lookup-pass")" = fastcuda_cache_lookups ] || { echo "  no lookup pass"; return 1; }
  # Ninja builds every file no edge names: not the hit's intermediates, whose edges name them through dyndep files.
  local ran
  ran=$(tail -n "+$((mark + 1))" "$dir/.ninja_log" | cut -f4 | grep -E '\.(ii|ptx|cubin|c|cpp|fatbin|module_id)$' || true)
  [ -z "$ran" ] || { echo "  steps ran: $(echo "$ran" | paste -sd' ')"; return 1; }
}
check "fastcuda ninja: a manifest without defaults, cleaned: the hit starts no step but the lookup and the copy" \
  defaultless

dry_run_before_lookups() {  # Ninja loads each lookup's dyndep file in a dry run, which runs no lookup
  local dir=$scratch/dry-run
  mkdir -p "$dir"
  cp "$scratch/defaultless"/{a.cu,factor.h,build.ninja} "$dir/"
  CCACHE_DIR=$scratch/ccache-dry-run "$FASTCUDA" ninja -C "$dir" -n > "$scratch/dry-run.log" 2>&1 &&
    grep -q '\] CICC ' "$scratch/dry-run.log" && [ ! -e "$dir/a.o" ] &&
    "$FASTCUDA" gen --compdb "$project/compile_commands.json" --out "$scratch/dry-graph" > /dev/null 2>&1 &&
    ninja -C "$scratch/dry-graph" -n > "$scratch/dry-graph.log" 2>&1 && grep -q '\] CICC ' "$scratch/dry-graph.log" ||
    { tail -n 3 "$scratch/dry-run.log" "$scratch/dry-graph.log" 2>/dev/null; return 1; }
}
check "ninja -n before any lookup ran (fastcuda ninja, and a graph's own Ninja): lists the steps, writes no object" \
  dry_run_before_lookups

not_by_default() {  # a cached TU built only on request (CMake's EXCLUDE_FROM_ALL) is not looked up, nor its generator run
  local dir=$scratch/not_by_default
  mkdir -p "$dir"
  cp "$project"/{a.cu,b.cu,factor.h} "$dir/"
  cat > "$dir/build.ninja" <<NINJA
rule nvcc
  command = ccache $NVCC ${archs[*]} -MD -MF \$out.d -c \$in -o \$out
  depfile = \$out.d
  deps = gcc
rule generate
  command = echo '#define GENERATED 1' > \$out
build generated.h: generate
build a.o: nvcc a.cu
build b.o: nvcc b.cu || generated.h
default a.o
NINJA
  # defaultless's cache: a.o hits; b.o was never stored, nor looked up here.
  export CCACHE_DIR=$scratch/ccache-defaultless
  # (A first phase weighs every TU of the graph, b.cu too: docs/usage.md, known limits.)
  FASTCUDA_FIRST_PHASE=off "$FASTCUDA" ninja -C "$dir" > "$scratch/not-by-default.log" 2>&1 &&
    "$FASTCUDA" ninja -C "$dir" > "$scratch/not-by-default2.log" 2>&1 && same_object "$dir/a.o" "$scratch/ref/a.o" &&
    [ ! -e "$dir/generated.h" ] && [ -z "$(find "$dir/.fastcuda" -path '*b.o*' -name cache-result)" ] &&
    ! grep -q "error" "$scratch/not-by-default.log" "$scratch/not-by-default2.log" &&
    "$FASTCUDA" ninja -C "$dir" b.o > "$scratch/not-by-default-b.log" 2>&1 && same_object "$dir/b.o" "$scratch/ref/b.o"
}
check "fastcuda ninja: a cached TU that the defaults do not need is not looked up, nor its generator run" \
  not_by_default

finish

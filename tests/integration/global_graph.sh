#!/usr/bin/env bash
# The global graph against real nvcc: a compile database of several TUs
# (two with the same basename, one header shared, one included by one TU)
# built with `fastcuda build --compdb`. Checks: device code equal to nvcc's,
# sub-steps of different TUs interleaved in .ninja_log, a second build has
# no work, a header touch rebuilds only the TUs that include it, a flags
# change regenerates the graph, an entry without -o writes nvcc's object
# where nvcc does, and a compile error gives ninja's failure.
#
# usage: global_graph.sh FASTCUDA_BINARY [NVCC]
set -euo pipefail
# Under pipefail, `COMMAND | grep -q` fails when grep stops reading at its
# match and COMMAND, still writing, dies of SIGPIPE: checks read it all.
source "$(dirname "${BASH_SOURCE[0]}")/checks.sh" global_graph "$@"

project=$scratch/project
mkdir -p "$project/src/sub" "$project/include" "$project/build"
cat > "$project/include/common.h" <<'H'
#pragma once
__device__ inline float twice(float x) { return 2.f * x; }
H
cat > "$project/include/only_b.h" <<'H'
#pragma once
#define B_SCALE 3.f
H
cat > "$project/src/a.cu" <<'C'
#include "common.h"
__global__ void ka(float *x) { x[threadIdx.x] = twice(x[threadIdx.x]); }
void launch_a(float *x) { ka<<<1, 32>>>(x); }
C
cat > "$project/src/b.cu" <<'C'
#include "common.h"
#include "only_b.h"
__global__ void kb(float *x) { x[threadIdx.x] = B_SCALE * twice(x[threadIdx.x]); }
void launch_b(float *x) { kb<<<1, 32>>>(x); }
C
# More kernels than the others: the first build's estimates rank it first.
cat > "$project/src/sub/a.cu" <<'C'
__global__ void ksub(int *x) { x[threadIdx.x] += 1; }
__global__ void ksub2(int *x) { x[threadIdx.x] += 2; }
__global__ void ksub3(int *x) { x[threadIdx.x] += 3; }
void launch_sub(int *x) { ksub<<<1, 32>>>(x); ksub2<<<1, 32>>>(x); ksub3<<<1, 32>>>(x); }
C

archs=(-gencode arch=compute_80,code=sm_80 -gencode "arch=compute_90,code=[sm_90,compute_90]")
write_db() {  # extra flag for b.cu (may be empty)
  local extra=$1
  {
    echo "["
    local first=1
    for src in src/a.cu src/b.cu src/sub/a.cu; do
      local obj="obj/${src//\//_}.o" flags=""
      [[ $src == src/b.cu && -n $extra ]] && flags="$extra "
      [[ $first -eq 1 ]] || echo ","
      first=0
      printf '{"directory": "%s", "file": "%s", "output": "%s",\n "command": "%s %s-I../include %s -c ../%s -o %s"}' \
        "$project/build" "$project/$src" "$obj" "$NVCC" "$flags" "${archs[*]}" "$src" "$obj"
    done
    echo "]"
  } > "$project/build/compile_commands.json"
}
write_db ""
# The same TUs' device code built by nvcc itself, for comparison: `nvcc
# -fatbin` with the same flags runs the fatbinary command of `-c` on the
# same images, whose bytes are the object's .nv_fatbin, without the host
# side (preprocessing, cudafe++, gcc).
mkdir -p "$project/build/obj" "$scratch/ref"
reference() {  # SRC: nvcc's fatbin for the TU in $scratch/ref
  (cd "$project/build" && "$NVCC" -I../include "${archs[@]}" -fatbin "../$1" -o "$scratch/ref/${1//\//_}.o.fatbin")
}
for src in src/a.cu src/b.cu src/sub/a.cu; do reference "$src"; done

object_as_nvccs() {  # OBJECT-NAME: the device code the graph wrote in it is nvcc's
  objcopy -O binary --only-section=.nv_fatbin "$project/build/obj/$1" "$scratch/x.fb"
  cmp -s "$scratch/x.fb" "$scratch/ref/$1.fatbin" && [ -s "$scratch/x.fb" ]
}
all_same_device_code() {
  object_as_nvccs src_a.cu.o && object_as_nvccs src_b.cu.o && object_as_nvccs src_sub_a.cu.o
}

graph=$scratch/graph
"$FASTCUDA" build --compdb "$project/build/compile_commands.json" --out "$graph" -j 2 > "$scratch/build1.log" 2>&1
check "clean build: device code equals nvcc's for every TU" all_same_device_code
estimate_of() {  # OUTPUT-PATTERN: the first build's estimated ms for it (a record with mtime and hash 0)
  awk -F'\t' -v pattern="$1" '$3 == 0 && $5 == 0 && $4 ~ pattern { print $2 - $1; exit }' "$graph/.ninja_log"
}
first_phase_ranked() {  # sub/a.cu, with the most kernels, is estimated longest and written first;
  # the phase ran the host preprocessing, where every chain starts (cicc waits for cudafe++)
  local sub a
  sub=$(estimate_of 'src_sub_a\.cu\.o-.*compute_80\.cudafe1\.c$') a=$(estimate_of 'src_a\.cu\.o-.*compute_80\.cudafe1\.c$')
  [ -f "$graph/first-phase" ] && [ -n "$sub" ] && [ -n "$a" ] && [ "$sub" -gt "$a" ] &&
    [ -z "$(estimate_of '\.cpp4\.ii$')" ] && [ -n "$(estimate_of 'compute_80\.cpp1\.ii$')" ] && [ -f "$graph/no-history" ] &&
    grep -m1 '^# steps of' "$graph/build.ninja" | grep -q 'sub/a\.cu$'
}
check "a first build weighs each TU's device code first, then ranks by estimates (the heavier TU first)" \
  first_phase_ranked
report_has_both_phases() {  # every step in the report's table once, the first phase's too
  every_step_once "$graph" && [ "$(cut -d, -f3 "$scratch/table.csv" | grep -c '^CPP_DEVICE$')" -eq 6 ]
}
check "the first build's table holds both of its Ninja runs' steps" report_has_both_phases
regenerates_once_with_history() {
  local build=("$FASTCUDA" build --compdb "$project/build/compile_commands.json" --out "$graph" -j 2)
  local second third
  second=$("${build[@]}" 2>&1) && third=$("${build[@]}" 2>&1) &&
    grep -q "CUDA TUs" <<< "$second" && [ ! -e "$graph/no-history" ] && ! grep -q "CUDA TUs" <<< "$third"
}
check "the next build regenerates once, with the step times of the first" regenerates_once_with_history
remembered_elsewhere() {  # a second build directory of the same sources: no first phase, the first's times
  local graph2=$scratch/graph2 cicc='src_sub_a\.cu\.o-.*compute_90\.cudafe1\.c$' measured remembered peak
  measured=$(awk -F'\t' -v re="$cicc" '$3 != 0 && $4 ~ re { t = $2 - $1 } END { print t }' "$graph/.ninja_log")
  peak=$(awk -F'\t' -v re="$cicc" '$1 ~ re { p = $2 } END { print p }' "$graph/step-memory.tsv")
  FASTCUDA_VERBOSE=1 "$FASTCUDA" build --compdb "$project/build/compile_commands.json" --out "$graph2" -j 2 \
    > "$scratch/remembered.log" 2>&1 || return 1
  remembered=$(awk -F'\t' -v re="$cicc" '$3 == 0 && $5 == 0 && $4 ~ re { print $2 - $1; exit }' "$graph2/.ninja_log")
  grep -q "ranked by the step times of an earlier build elsewhere: 3 of 3 TUs" "$scratch/remembered.log" &&
    [ "$(grep -c 'CUDA TUs' "$scratch/remembered.log")" = 1 ] &&  # the ranking's regeneration says nothing
    [ -n "$measured" ] && [ "$remembered" = "$measured" ] && [ -n "$peak" ] &&
    [ "$(awk -F'\t' -v re="$cicc" '$1 ~ re { print $2; exit }' "$graph2/remembered-memory.tsv")" = "$peak" ] &&
    ! grep -q '^\[[0-9]*/[0-9]*\] CPP_HOST' <(sed -n '1,/ranked by the step times/p' "$scratch/remembered.log") &&
    [ "$(cat "$FASTCUDA_STEP_HISTORY"/*.json | jq -s 'map(select(.source | startswith("'"$project"'/src/"))) | length')" -eq 3 ] &&
    all_same_device_code
}
check "a fresh build directory of the same sources is ranked by the times (and peaks) remembered from the first (no phase), one report" \
  remembered_elsewhere
views_are_well_formed() {
  "$FASTCUDA" trace "$graph" | jq -e '[.traceEvents[] | select(.ph == "X")] | length > 10' >/dev/null &&
    "$FASTCUDA" trace --svg "$graph" -o "$scratch/trace.svg" && python3 -c 'import sys, xml.dom.minidom; xml.dom.minidom.parse(sys.argv[1])' "$scratch/trace.svg" &&
    "$FASTCUDA" report "$graph" | grep "lower bound" > /dev/null &&
    [ "$("$FASTCUDA" table "$graph" | awk -F, 'NR > 1 && NF != 10' | wc -l)" -eq 0 ] &&
    "$FASTCUDA" graph "$graph" | grep "subgraph cluster_2" > /dev/null
}
check "trace (JSON and SVG), report, table and graph of the clean build" views_are_well_formed

interleaved() {  # some TU's steps start before and after another TU's step
  grep -v '^#' "$graph/.ninja_log" | sort -n -k1,1 | awk -F'\t' '{ split($4, p, "/tu/"); split(p[2], q, "/"); print q[1] }' |
    awk '{ if ($0 != last) { runs[$0]++; last = $0 } } END { for (tu in runs) if (runs[tu] > 1) found = 1; exit !found }'
}
check ".ninja_log: sub-steps of different TUs interleave" interleaved

no_work() { ninja -C "$graph" -n | grep "no work to do" > /dev/null; }
check "second build: no work" no_work

touch "$project/include/only_b.h"
only_b_rebuilds() {  # (a priority ladder's rung waits for steps of both TUs; it is no step)
  local plan; plan=$(ninja -C "$graph" -n | grep '^\[' | grep -v '^\[[0-9]*/[0-9]*\] rung ')
  [ -n "$plan" ] && ! grep -v '/b\.cu$' <<<"$plan" | grep . > /dev/null && grep -q 'HOST_CC .*/b\.cu$' <<<"$plan"
}
check "touching a header rebuilds only the steps of the TU that includes it" only_b_rebuilds
ninja -C "$graph" >/dev/null

sleep 1  # a coarse-mtime file system must see the database as newer
write_db "-DCHANGED_FLAG"
# nvcc's reference stays: the flag changes no preprocessed text, so nvcc's
# device code of b.cu is the same bytes with it (a compile saved).
regenerates() {
  ninja -C "$graph" > "$scratch/build2.log" 2>&1 && grep -q "Regenerating the FastCuda graph" "$scratch/build2.log" &&
    grep -q "CPP_HOST .*/b.cu" "$scratch/build2.log" && ! grep -q "CPP_HOST .*/a.cu" "$scratch/build2.log"
}
# (The flag changes no preprocessed text: restat then skips the rest of b.cu's steps.)
check "a flags change regenerates the graph and reruns that TU's steps only" regenerates
check "after the flags change: device code equals nvcc's" all_same_device_code

# The priority ladder (on by default for Ninja 1.12 and later) needs history
# in which some steps take longer than a rung (250 ms): say b.cu's took 3 s.
ladder_builds() {
  awk -F'\t' -v OFS='\t' '$4 ~ /src_b\.cu\.o-/ { $2 = $1 + 3000 } { print }' "$graph/.ninja_log" \
    > "$scratch/log" && cp "$scratch/log" "$graph/.ninja_log"
  # b.cu's object alone: its steps, the long ones, are those the rungs wait
  # for (a removed object reruns its TU's whole chain from the stubs).
  rm "$project/build/obj/src_b.cu.o"
  FASTCUDA_PRIORITY_LADDER=on "$FASTCUDA" build --compdb "$project/build/compile_commands.json" --out "$graph" -j 2 \
    > "$scratch/ladder.log" 2>&1 &&
    grep -q '^build [^:]*/priority/rung1: FASTCUDA_RUNG' "$graph/build.ninja" &&
    all_same_device_code && ninja -C "$graph" -n | grep "no work to do" > /dev/null
}
check "the priority ladder: in the manifest, device code unchanged, then no work" ladder_builds
# Ninja 1.12 and later rank through the rungs, which the generation writes and
# no build runs: the history says one architecture's steps took 3 s (the
# other's 10 ms) and, one job, a dry run after a touch, Ninja starts that
# architecture's first cicc, whichever it is.
first_cicc_with_long() {  # ARCH: the architecture of the first cicc Ninja starts, ARCH's steps long
  awk -F'\t' -v OFS='\t' -v arch="$1" '/^#/ { print; next } { $2 = $1 + ($4 ~ arch ? 3000 : 10); print }' \
    "$graph/.ninja_log" > "$scratch/log" && cp "$scratch/log" "$graph/.ninja_log" &&
    FASTCUDA_PRIORITY_LADDER=on "$FASTCUDA" gen --compdb "$project/build/compile_commands.json" --out "$graph" \
      > /dev/null 2>&1 && touch "$project"/src/*.cu "$project"/src/sub/*.cu &&
    ninja -C "$graph" -n -j 1 | sed -n 's/^\[[0-9]*\/[0-9]*\] CICC \(compute_[0-9]*\) .*/\1/p' | head -n 1
}
ranked_through_clean_rungs() {
  [ "$(first_cicc_with_long compute_90)" = compute_90 ] && [ "$(first_cicc_with_long compute_80)" = compute_80 ] &&
    ! grep -q '] rung ' "$scratch/ladder.log"
}
ninja_version=$(ninja --version)
if [ "$(printf '%s\n' 1.12 "$ninja_version" | sort -V | head -n 1)" = 1.12 ]; then
  check "Ninja $ninja_version ranks each step by the history through rungs that never run" ranked_through_clean_rungs
else
  echo "SKIP the ladder's ranking: Ninja $ninja_version ranks no edge by its path (1.12 does)"
fi
no_ladder_without_asking() {
  FASTCUDA_PRIORITY_LADDER=off "$FASTCUDA" gen --compdb "$project/build/compile_commands.json" --out "$graph" \
    2>/dev/null && ! grep -q FASTCUDA_RUNG "$graph/build.ninja"
}
check "FASTCUDA_PRIORITY_LADDER=off: no ladder" no_ladder_without_asking


waits_for_other_build() {
  flock "$graph/build.lock" sleep 2 &
  sleep 0.5
  "$FASTCUDA" build --compdb "$project/build/compile_commands.json" --out "$graph" > "$scratch/locked.log" 2>&1 &&
    grep -q "another fastcuda build is running in $graph; waiting" "$scratch/locked.log"
}
check "a second fastcuda build of one directory waits for the first, and says so" waits_for_other_build

# Stopping a build: SIGTERM to fastcuda reaches Ninja, which stops every step;
# the next build is correct. It stops once a cicc has written its temporary
# file, so the TU need only keep cicc busy for a while (96 iterations: 2 s
# an arch here; 160 took 4 s, 64 once left too short a window on CI's busy
# 2 cores). The TU is built twice more (the next build, nvcc's reference):
# one architecture, and ptxas at -O0 (its unrolled code took ptxas longer
# than cicc).
cat > "$project/src/slow.cu" <<'C'
template <int N> __global__ void slow(const float *in, float *out) {
  float v = in[threadIdx.x], acc = 0.f;
#pragma unroll
  for (int i = 0; i < N; ++i) {
    acc = fmaf(sinf(v + i * 0.25f), cosf(v * (i + 1)), acc);
    v = v * 1.0001f + expf(-acc * 1e-3f);
  }
  out[threadIdx.x] = acc + v;
}
template __global__ void slow<96>(const float *, float *);
C
slow_arch=(-gencode arch=compute_80,code=sm_80 -Xptxas -O0)
printf '[{"directory": "%s", "file": "%s", "output": "obj/slow.o", "command": "%s %s -c ../src/slow.cu -o obj/slow.o"}]\n' \
  "$project/build" "$project/src/slow.cu" "$NVCC" "${slow_arch[*]}" > "$project/build/slow_db.json"
stops_cleanly() {
  mkdir -p "$scratch/slow-tmp"
  TMPDIR=$scratch/slow-tmp "$FASTCUDA" build --compdb "$project/build/slow_db.json" --out "$scratch/slow" \
    > "$scratch/slow1.log" 2>&1 &
  local pid=$!
  local in_cicc=0
  cicc_wrote_temp_file "$pid" && in_cicc=1
  kill -TERM "$pid"
  wait "$pid" && return 1  # it must fail
  # Every step ends and removes its TMPDIR; a sanitized fastcuda on busy
  # cores took more than the one second this case waited once (CI, 2 cores).
  local tenth
  for tenth in $(seq 100); do
    ! pgrep -f "$scratch/slow" > /dev/null && empty_dir "$scratch/slow-tmp" && break
    sleep 0.1
  done
  # a stopped cicc leaves its bitcode file in TMPDIR, unless its step removes it
  [ "$in_cicc" -eq 1 ] && ! pgrep -f "$scratch/slow" >/dev/null && empty_dir "$scratch/slow-tmp" &&
    "$FASTCUDA" build --compdb "$project/build/slow_db.json" --out "$scratch/slow" > "$scratch/slow2.log" 2>&1 &&
    (cd "$project/build" && "$NVCC" "${slow_arch[@]}" -fatbin ../src/slow.cu -o "$scratch/ref/slow.fatbin") &&
    objcopy -O binary --only-section=.nv_fatbin "$project/build/obj/slow.o" "$scratch/x.fb" &&
    [ -s "$scratch/x.fb" ] && cmp -s "$scratch/x.fb" "$scratch/ref/slow.fatbin"
}
check "SIGTERM stops the build and every step, leaving nothing in TMPDIR; the next build is correct" stops_cleanly

# An entry without -o (nor "output"): nvcc writes kern.o, named after the
# source, in the entry's directory. FastCuda splits it with that output and
# builds the other entry too.
no_output_entry() {
  local dir=$scratch/no_output
  mkdir -p "$dir/ref"
  printf '__global__ void kern(float *x) { x[threadIdx.x] *= 2.f; }\n' > "$dir/kern.cu"
  printf '__global__ void other(int *x) { x[threadIdx.x] += 1; }\n' > "$dir/other.cu"
  printf '[{"directory": "%s", "file": "kern.cu", "command": "%s -arch=sm_80 -c kern.cu"},
 {"directory": "%s", "file": "other.cu", "command": "%s -arch=sm_80 -c other.cu -o other.o"}]\n' \
    "$dir" "$NVCC" "$dir" "$NVCC" > "$dir/db.json"
  (cd "$dir" && "$NVCC" -arch=sm_80 -c kern.cu && "$NVCC" -arch=sm_80 -c other.cu -o other.o &&
    mv kern.o other.o ref/) &&
    FASTCUDA_FIRST_PHASE=off "$FASTCUDA" build --compdb "$dir/db.json" --out "$dir/graph" > "$dir/build.log" 2>&1 &&
    ! grep -q "nvcc runs whole" "$dir/build.log" && [ ! -e "$dir/graph/first-phase" ] &&
    same_object "$dir/kern.o" "$dir/ref/kern.o" && same_object "$dir/other.o" "$dir/ref/other.o" &&
    ninja -C "$dir/graph" -n | grep "no work to do" > /dev/null
}
check "an entry without -o: split, its object nvcc's kern.o in its directory; the rest builds (no first phase: off)" \
  no_output_entry

# A PTX-only target: nvcc checks its PTX with ptxas, which writes nothing.
ptx_only_checked() (
  mkdir -p "$scratch/ptx" && cd "$scratch/ptx"
  printf '__global__ void k(int *p) { *p = 1; }\nvoid run(int *p) { k<<<1, 1>>>(p); }\n' > k.cu
  printf '[{"directory": "%s", "file": "k.cu", "command": "%s %s -c k.cu -o k.o"}]\n' "$PWD" "$NVCC" \
    "-gencode arch=compute_80,code=sm_80 -gencode arch=compute_90,code=compute_90" > db.json
  export FASTCUDA_PRIORITY_LADDER=on  # the ladder's regeneration used to be the first to run the check
  "$FASTCUDA" build --compdb db.json --out graph > first.log 2>&1 && grep -q 'PTXAS compute_90' first.log &&
    "$FASTCUDA" build --compdb db.json --out graph > second.log 2>&1 && ! grep -q 'PTXAS' second.log &&
    "$NVCC" -gencode arch=compute_80,code=sm_80 -gencode arch=compute_90,code=compute_90 -c k.cu -o ref.o &&
    same_object k.o ref.o
)
check "a PTX-only target: the first build runs ptxas's check of the PTX, the second has none to rerun" \
  ptx_only_checked

echo '__global__ void broken( { }' > "$project/src/sub/a.cu"
fails_like_ninja() {
  ! "$FASTCUDA" build --compdb "$project/build/compile_commands.json" --out "$graph" > "$scratch/build3.log" 2>&1 &&
    grep -q "sub/a.cu(1): error" "$scratch/build3.log" &&
    ninja -C "$graph" -n | grep 'HOST_CC .*/sub/a\.cu$' > /dev/null  # nothing of the failed TU is trusted
}
check "a compile error fails the build with the compiler's message, and is retried" fails_like_ninja

finish

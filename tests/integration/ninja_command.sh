#!/usr/bin/env bash
# `fastcuda ninja` against real nvcc, Ninja and CMake, on manifests that the
# generators write, run in their own directories:
#  PyTorch   a torch.utils.cpp_extension build.ninja (two .cu files sharing a
#            header, one .cpp, linked into ext.so; deps = gcc): the nvcc edges
#            are split, objects equal those plain ninja builds from the same
#            manifest, a second run has no work and leaves Ninja's log as
#            it was, `-t deps` lists the header, header edits (the shared
#            one, then scale.cu's own) alternating fastcuda ninja and plain
#            ninja never leave a stale object, a .cu edit reruns only its
#            TU's steps and the link, a manifest change is followed, a
#            compile error fails with nvcc's message and the fix builds;
#            one object or SOURCE^ built, then plain ninja: no work.
#  errors    a manifest with a syntax error: exit 2, FILE:LINE:, nothing
#            written; an unknown target exits like ninja with its message.
#  generated a .cu that another edge makes, missing when the manifest is
#            rewritten: its steps wait for that edge (objects equal nvcc's).
#  CMake     a project configured with -G Ninja and no FastCuda module: built
#            split, objects equal a plain build's, no work after, an edit of
#            CMakeLists.txt reruns CMake through its own edge and the new
#            definition reaches the objects; a no-op is plain Ninja's dry run
#            of CMake's manifest (the rewrite not loaded), and a header edit,
#            its undoing with cp -p, CPATH or a removed object still build;
#            with CONFIGURE_DEPENDS globs a new source reruns CMake once;
#            with a host compiler script a no-op is still plain Ninja's.
#
# usage: ninja_command.sh FASTCUDA_BINARY [NVCC]
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/checks.sh" ninja_command "$@"
cd "$scratch"

fc_ninja() {  # LOG DIR [ARGS...]: `fastcuda ninja -C DIR -j 2 ARGS...`, output in LOG; its status
  local log=$1 dir=$2; shift 2
  "$FASTCUDA" ninja -C "$dir" -j 2 "$@" > "$log" 2>&1
}
plain_ninja() {  # LOG DIR [ARGS...]
  local log=$1 dir=$2; shift 2
  ninja -C "$dir" -j 2 "$@" > "$log" 2>&1
}
fatbin() {  # OBJECT OUT: its device code sections
  objcopy -O binary --only-section=.nv_fatbin --only-section=__nv_relfatbin "$1" "$2"
}
device_code_differs() {  # OBJECT-A OBJECT-B: both have device code, and it differs
  fatbin "$1" "$scratch/a.fb" && fatbin "$2" "$scratch/b.fb" && [ -s "$scratch/a.fb" ] && [ -s "$scratch/b.fb" ] &&
    ! cmp -s "$scratch/a.fb" "$scratch/b.fb"
}
status_lines() { steps_run "$1"; }  # LOG: Ninja's edge lines, the ladder's rungs left out
ran_split() {  # LOG SOURCE...: the build in LOG ran a cicc step of each SOURCE
  local source
  for source in "${@:2}"; do
    grep -Eq "\] CICC .*(^|[ /])${source//./\\.}( |\$)" <<<"$(status_lines "$1")" || { echo "  no CICC step of $source in $1"; return 1; }
  done
}

# --- 1. A torch.utils.cpp_extension manifest --------------------------------
src=$scratch/ext-src
ext=$scratch/ext             # built with fastcuda ninja (and plain ninja in between)
ref=$scratch/ext-plain       # the same manifest, only ever built with plain ninja
mkdir -p "$src/include" "$ext" "$ref"
cuda_lib=$(realpath -m "$(dirname "$NVCC")/../lib64")

write_header() {  # FACTOR
  printf '#pragma once\n#define FACTOR %s\n__device__ inline float scaled(float x) { return FACTOR * x; }\n' "$1" \
    > "$src/include/common.cuh"
}
# A header of scale.cu's alone: edited, one TU rebuilds, not both.
write_own_header() {  # EXTRA
  printf '#pragma once\n#define EXTRA %s\n' "$1" > "$src/include/scale_extra.cuh"
}
write_scale() {  # OFFSET
  cat > "$src/scale.cu" <<C
#include "common.cuh"
#include "scale_extra.cuh"
__global__ void scale_kernel(float *x) {
#ifdef SCALE
  x[threadIdx.x] = SCALE * scaled(x[threadIdx.x]) + $1 + EXTRA;
#else
  x[threadIdx.x] = scaled(x[threadIdx.x]) + $1 + EXTRA;
#endif
}
void scale(float *x) { scale_kernel<<<1, 32>>>(x); }
C
}
write_header 2
write_own_header 1.f
write_scale 0.f
cat > "$src/shift.cu" <<'C'
#include "common.cuh"
__global__ void shift_kernel(float *x) { x[threadIdx.x] = scaled(x[threadIdx.x]) + 1.f; }
void shift(float *x) { shift_kernel<<<1, 32>>>(x); }
C
cat > "$src/ext.cpp" <<'C'
void scale(float *x);
void shift(float *x);
extern "C" void run(float *x) { scale(x); shift(x); }
C

# One architecture (TORCH_CUDA_ARCH_LIST=9.0): what is checked here is how
# the manifest is read, rewritten and handed over, not an architecture's
# chain (several: flag_matrix, global_graph); each one costs CI nvcc's time.
write_manifest() {  # DIR [EXTRA-CUDA-FLAG]: build.ninja as cpp_extension writes it
  cat > "$1/build.ninja" <<N
ninja_required_version = 1.3
cxx = c++
nvcc = $NVCC

cflags = -DTORCH_EXTENSION_NAME=ext -I$src/include -fPIC -std=c++17
post_cflags =
cuda_cflags = ${2:+$2 }-gencode=arch=compute_90,code=sm_90 --compiler-options '-fPIC' -std=c++17 -I$src/include
cuda_post_cflags = -DTORCH_EXTENSION_NAME=ext
cuda_dlink_post_cflags =
ldflags = -shared -L$cuda_lib -lcudart

rule compile
  command = \$cxx -MMD -MF \$out.d \$cflags -c \$in -o \$out \$post_cflags
  depfile = \$out.d
  deps = gcc

rule cuda_compile
  depfile = \$out.d
  deps = gcc
  command = \$nvcc --generate-dependencies-with-compile --dependency-output \$out.d \$cuda_cflags -c \$in -o \$out \$cuda_post_cflags



rule link
  command = \$cxx \$in \$ldflags -o \$out

build ext.o: compile $src/ext.cpp
build scale.cuda.o: cuda_compile $src/scale.cu
build shift.cuda.o: cuda_compile $src/shift.cu



build ext.so: link ext.o scale.cuda.o shift.cuda.o

default ext.so
N
}
write_manifest "$ext"
write_manifest "$ref"

reference_build() { plain_ninja "$scratch/ref.log" "$ref"; }  # nvcc's objects for the sources as they are now
objects_like_plain() {  # the CUDA objects of $ext equal plain ninja's of $ref
  same_object "$ext/scale.cuda.o" "$ref/scale.cuda.o" && same_object "$ext/shift.cuda.o" "$ref/shift.cuda.o"
}
keep_reference() { cp "$ref/scale.cuda.o" "$scratch/old-scale.o" && cp "$ref/shift.cuda.o" "$scratch/old-shift.o"; }
both_references_changed() {  # the edit changed nvcc's device code of both TUs (else a stale object would pass)
  device_code_differs "$scratch/old-scale.o" "$ref/scale.cuda.o" &&
    device_code_differs "$scratch/old-shift.o" "$ref/shift.cuda.o"
}

reference_build
first_status=0
fc_ninja "$scratch/first.log" "$ext" || first_status=$?
builds_split() {
  local lines
  lines=$(status_lines "$scratch/first.log")
  [ "$first_status" -eq 0 ] && [ -f "$ext/ext.so" ] && [ -f "$ext/ext.o" ] &&
    ran_split "$scratch/first.log" scale.cu shift.cu && grep -Eq '\] PTXAS .*sm_90.*scale\.cu' <<< "$lines" &&
    ! grep -q -- '--generate-dependencies-with-compile' <<< "$lines" &&  # no whole nvcc edge ran
    ! grep -q "nvcc runs whole" "$scratch/first.log" &&
    [ -s "$ext/.fastcuda/steps.ninja" ] && grep -q 'scale\.cu' "$ext/.fastcuda/steps.ninja" &&
    grep -q 'shift\.cu' "$ext/.fastcuda/steps.ninja"
}
check "PyTorch: fastcuda ninja builds ext.so, both nvcc edges split into steps" builds_split
check "PyTorch: the first build weighed each TU's device code first, then ran every step once" \
  every_step_once "$ext/.fastcuda"
ext_objects_like_plain() {
  local symbols
  objects_like_plain && cmp -s "$ext/ext.o" "$ref/ext.o" && symbols=$(nm -D --defined-only "$ext/ext.so") &&
    grep -qw run <<<"$symbols"
}
check "PyTorch: each object equals plain ninja's from the same manifest, the .cpp's too" ext_objects_like_plain

# Once the first build's step times arrive, Ninja 1.12+ stamps the priority
# ladder's rungs in the next build (no step): the one after has no work.
no_work() {  # LOG DIR: fastcuda ninja twice, no step in the first, no work in the second
  fc_ninja "$1" "$2" && [ -z "$(steps_run "$1")" ] && fc_ninja "$1.again" "$2" && grep -q "no work to do" "$1.again"
}
second_no_work() { no_work "$scratch/second.log" "$ext"; }
check "PyTorch: a second fastcuda ninja runs no step, a third has no work" second_no_work
# Switching: fastcuda ninja hands its objects' log records over to the
# generator's nvcc commands, and takes them back before its next run.
switch_no_work() {
  plain_ninja "$scratch/switch-plain.log" "$ext" && grep -q "no work to do" "$scratch/switch-plain.log" &&
    fc_ninja "$scratch/switch-fc.log" "$ext" && grep -q "no work to do" "$scratch/switch-fc.log" &&
    plain_ninja "$scratch/switch-plain2.log" "$ext" && grep -q "no work to do" "$scratch/switch-plain2.log"
}
check "PyTorch: plain ninja after fastcuda ninja, and back, and again: no work each time" switch_no_work
# A fastcuda ninja that runs no step puts back what it took back: Ninja's log
# does not grow by two records an object in every build with nothing to do.
noop_keeps_log() {
  local before
  before=$(md5sum < "$ext/.ninja_log") && fc_ninja "$scratch/noop-log.log" "$ext" &&
    grep -q "no work to do" "$scratch/noop-log.log" && [ "$(md5sum < "$ext/.ninja_log")" = "$before" ] &&
    plain_ninja "$scratch/noop-log-plain.log" "$ext" && grep -q "no work to do" "$scratch/noop-log-plain.log"
}
check "PyTorch: a fastcuda ninja with no work leaves Ninja's log as it was; plain ninja: no work" noop_keeps_log
remembered_once() {  # the step history: a file per TU from the first build; the runs since, which ran no
  # step (the records fastcuda ninja hands over and takes back are none), wrote none
  [ "$(find "$FASTCUDA_STEP_HISTORY" \( -name 'scale.cu-*.json' -o -name 'shift.cu-*.json' \) | wc -l)" -eq 2 ] &&
    [ -z "$(find "$FASTCUDA_STEP_HISTORY" -name '*.json' -newer "$scratch/second.log")" ]
}
check "PyTorch: the first build's step times are remembered, and no run since rewrote them" remembered_once

# A header touched, not changed: Ninja reruns each object's edge (the header
# is in its deps), whose host compile reads nothing that changed: not run.
touched_header_no_compile() {
  local memory=$ext/.fastcuda/step-memory.tsv before
  compiles() { awk -F'\t' '$1 ~ /(^|\/)scale\.cuda\.o$/' "$memory" | wc -l; }  # the object's line: its compile ran
  before=$(compiles)
  touch "$src/include/common.cuh"
  fc_ninja "$scratch/touch.log" "$ext" || return 1
  grep -Eq '\] HOST_CC .*scale\.cu' <<<"$(status_lines "$scratch/touch.log")" || { echo "  the object's edge did not run"; return 1; }
  [ "$before" -gt 0 ] && [ "$(compiles)" -eq "$before" ] || { echo "  the host compile ran"; return 1; }
  objects_like_plain && no_work "$scratch/touch2.log" "$ext"
}
check "PyTorch: a header touched: the objects' edges run, their host compiles do not; objects equal nvcc's" touched_header_no_compile

deps_list_header() {  # one object's deps, from plain ninja and from fastcuda ninja
  ninja -C "$ext" -t deps scale.cuda.o > "$scratch/deps-plain.txt" 2>&1 &&
    "$FASTCUDA" ninja -C "$ext" -t deps scale.cuda.o > "$scratch/deps-fc.txt" 2>&1 &&
    grep -q 'include/common\.cuh$' "$scratch/deps-plain.txt" && grep -q '(VALID)' "$scratch/deps-plain.txt" &&
    grep -q 'include/common\.cuh$' "$scratch/deps-fc.txt"
}
check "PyTorch: ninja -t deps and fastcuda ninja -t deps list include/common.cuh for scale.cuda.o" deps_list_header
trace_sizes_objects() {  # the trace reads the manifest's log and sizes its relative outputs
  local size
  size=$(stat -c %s "$ext/scale.cuda.o")
  "$FASTCUDA" trace "$ext/.fastcuda" |
    jq -e --argjson size "$size" '[.traceEvents[] | select(.ph == "X" and .args.output_bytes == $size)] | length >= 1' \
      > /dev/null
}
check "PyTorch: fastcuda trace of .fastcuda sizes the object (a path relative to the manifest)" trace_sizes_objects

# Header edits, alternating fastcuda ninja and plain ninja in the same
# directory: the header of both TUs, then scale.cu's own (one TU to rebuild).
header_edit_then() {  # common|own VALUE fastcuda|plain: edit the header, build $ext so, objects equal nvcc's
  local tus=(scale.cu)
  keep_reference
  if [ "$1" = common ]; then write_header "$2"; tus+=(shift.cu); else write_own_header "$2"; fi
  reference_build || return 1
  if [ "$1" = common ]; then
    both_references_changed || { echo "  the header edit changed no device code"; return 1; }
  else
    device_code_differs "$scratch/old-scale.o" "$ref/scale.cuda.o" || { echo "  the header edit changed no device code"; return 1; }
  fi
  if [ "$3" = fastcuda ]; then
    fc_ninja "$scratch/header-$2.log" "$ext" && ran_split "$scratch/header-$2.log" "${tus[@]}" || return 1
  else
    plain_ninja "$scratch/header-$2.log" "$ext" || return 1
  fi
  objects_like_plain
}
check "PyTorch: header edited, fastcuda ninja: both objects rebuilt, equal to nvcc's" header_edit_then common 3 fastcuda
check "PyTorch: scale.cu's own header edited, plain ninja in the same directory: equal to nvcc's" \
  header_edit_then own 4.f plain
check "PyTorch: scale.cu's own header edited again, fastcuda ninja: equal to nvcc's" header_edit_then own 5.f fastcuda

# An edit built by plain ninja, then undone: the steps' intermediates come out
# as they were (restat keeps them), so fastcuda ninja must not keep plain's object.
undone_edit_not_kept() {
  cp "$src/scale.cu" "$scratch/scale.cu.kept"
  keep_reference
  write_scale 7.f
  plain_ninja "$scratch/undo-plain.log" "$ext" || return 1
  device_code_differs "$scratch/old-scale.o" "$ext/scale.cuda.o" || { echo "  the edit changed no device code"; return 1; }
  cp "$scratch/scale.cu.kept" "$src/scale.cu"
  # The reference never saw the edit: its objects are nvcc's of these sources.
  fc_ninja "$scratch/undo-fc.log" "$ext" && objects_like_plain
}
check "PyTorch: an edit built by plain ninja, then undone: fastcuda ninja's object equals nvcc's" undone_edit_not_kept

# A header edit built by fastcuda ninja, then the header restored with an
# older mtime and the object removed, built by plain ninja: the steps'
# intermediates hold the edit and are newer than the header, so fastcuda
# ninja must make the object that plain ninja made again from the sources.
# (scale.cu's own header: one TU holds the edit.)
older_header_after_plain() {
  cp "$src/include/scale_extra.cuh" "$scratch/scale_extra.cuh.kept"
  write_own_header 6.f
  fc_ninja "$scratch/older-fc1.log" "$ext" || return 1
  device_code_differs "$ext/scale.cuda.o" "$ref/scale.cuda.o" || { echo "  the edit changed no device code"; return 1; }
  cp "$scratch/scale_extra.cuh.kept" "$src/include/scale_extra.cuh" && touch -d 2020-01-01 "$src/include/scale_extra.cuh"
  rm "$ext/scale.cuda.o"
  plain_ninja "$scratch/older-plain.log" "$ext" && objects_like_plain || { echo "  plain ninja's objects differ"; return 1; }
  fc_ninja "$scratch/older-fc2.log" "$ext" && ran_split "$scratch/older-fc2.log" scale.cu && objects_like_plain
}
check "PyTorch: a header restored with an older mtime, built by plain ninja: fastcuda ninja's objects equal nvcc's" \
  older_header_after_plain

one_tu_edited() {  # only scale.cu's steps and the link run
  local lines others
  cp "$ref/scale.cuda.o" "$scratch/old-scale.o"
  write_scale 1.f
  reference_build && device_code_differs "$scratch/old-scale.o" "$ref/scale.cuda.o" &&
    fc_ninja "$scratch/one-tu.log" "$ext" || return 1
  lines=$(status_lines "$scratch/one-tu.log")
  others=$(grep -v -- '-o ext\.so' <<< "$lines" | grep -v 'scale\.cu' || true)
  [ -z "$others" ] || { echo "  ran besides scale.cu's steps and the link:"; sed 's/^/    /' <<< "$others"; }
  [ -z "$others" ] && grep -q -- '-o ext\.so' <<< "$lines" && ran_split "$scratch/one-tu.log" scale.cu &&
    same_object "$ext/scale.cuda.o" "$ref/scale.cuda.o"
}
check "PyTorch: one .cu edited: only that TU's steps and the link run; object equals nvcc's" one_tu_edited

follows_manifest() {  # -DSCALE=3 added to cuda_cflags (shift.cu's preprocessed text stays: its cicc need not rerun)
  sleep 1  # a coarse-mtime file system must see the manifest as newer
  cp "$ref/scale.cuda.o" "$scratch/old-scale.o"
  write_manifest "$ext" -DSCALE=3
  write_manifest "$ref" -DSCALE=3
  reference_build && device_code_differs "$scratch/old-scale.o" "$ref/scale.cuda.o" &&
    fc_ninja "$scratch/regenerate.log" "$ext" && ran_split "$scratch/regenerate.log" scale.cu &&
    objects_like_plain
}
check "PyTorch: build.ninja rewritten with -DSCALE=3: fastcuda ninja follows, objects equal nvcc's" follows_manifest

cp "$src/scale.cu" "$scratch/scale.cu.good"
printf '#include "common.cuh"\n__global__ void scale_kernel(float *x) { x[threadIdx.x] = undeclared_name; }\n' \
  > "$src/scale.cu"
compile_error_fails() {
  ! fc_ninja "$scratch/error.log" "$ext" && grep -Eq 'scale\.cu\([0-9]+\): error' "$scratch/error.log"
}
check "PyTorch: a compile error: fastcuda ninja fails with nvcc's message for that file" compile_error_fails
cp "$scratch/scale.cu.good" "$src/scale.cu"
fixed_builds() {  # the reference never saw the error: its objects are nvcc's of these sources
  fc_ninja "$scratch/fixed.log" "$ext" && objects_like_plain &&
    no_work "$scratch/fixed2.log" "$ext"
}
check "PyTorch: the error fixed: fastcuda ninja builds, objects equal nvcc's, then no work" fixed_builds

# A device flag changed, fastcuda ninja asked for one object, then plain
# ninja: the other object's last step (its host compile) has the command it
# had, but its device code is older. A build hands over to the nvcc edges
# only the objects its targets need; the other gets back the record it was
# handed over with, the old command's: here plain ninja rebuilds it.
one_target_then_plain() {
  sleep 1  # a coarse-mtime file system must see the manifest as newer
  keep_reference
  write_manifest "$ext" "-DSCALE=3 --ptxas-options=-O0"
  write_manifest "$ref" "-DSCALE=3 --ptxas-options=-O0"
  reference_build && both_references_changed || { echo "  the flag changed no device code"; return 1; }
  fc_ninja "$scratch/one-target.log" "$ext" scale.cuda.o &&  # shift.cu is older than its steps
    plain_ninja "$scratch/one-target-plain.log" "$ext" && objects_like_plain
}
check "PyTorch: a ptxas flag added, fastcuda ninja of one object, then plain ninja: objects equal nvcc's" \
  one_target_then_plain

# fastcuda ninja of one object, then of SOURCE^ (an IDE's "compile this
# file"), each followed by plain ninja: the object built is handed over to its
# nvcc edge, and the other, which the build did not need, keeps the record of
# the last build that handed it over. Plain ninja then rebuilds neither.
write_shift_with_host_function() {
  printf '#include "common.cuh"\n__global__ void shift_kernel(float *x) { x[threadIdx.x] = scaled(x[threadIdx.x]) + 1.f; }\n' \
    > "$src/shift.cu"
  printf 'void shift(float *x) { shift_kernel<<<1, 32>>>(x); }\nint shift_revision() { return %s; }\n' "$1" >> "$src/shift.cu"
}
no_rebuild_by_plain() {  # LOG: plain ninja of both objects found nothing to do
  plain_ninja "$1" "$ext" scale.cuda.o shift.cuda.o && grep -q "no work to do" "$1" ||
    { echo "  plain ninja rebuilt an object:"; steps_run "$1" | sed 's/^/    /'; return 1; }
}
one_target_handed_over() {
  fc_ninja "$scratch/settle.log" "$ext" || return 1  # both objects the steps' again, handed over
  cp "$ref/scale.cuda.o" "$scratch/old-scale.o"
  write_scale 2.f
  reference_build && device_code_differs "$scratch/old-scale.o" "$ref/scale.cuda.o" || return 1
  fc_ninja "$scratch/one-object.log" "$ext" scale.cuda.o && ran_split "$scratch/one-object.log" scale.cu &&
    no_rebuild_by_plain "$scratch/one-object-plain.log" || return 1
  write_shift_with_host_function 1
  reference_build && fc_ninja "$scratch/caret.log" "$ext" "$src/shift.cu^" &&
    grep -Eq '\] HOST_CC .*shift\.cu' <<<"$(status_lines "$scratch/caret.log")" &&
    no_rebuild_by_plain "$scratch/caret-plain.log" && objects_like_plain
}
check "PyTorch: fastcuda ninja of one object, then of shift.cu^: plain ninja after each rebuilds neither object" \
  one_target_handed_over

# --- 2. A manifest fastcuda ninja cannot read --------------------------------
# FastCuda's own reader stops at the error before any Ninja runs: the first
# pass only.
bad=$scratch/bad
mkdir -p "$bad"
printf 'rule cc\n  command = cc -c $in -o $out\nbuild x: nosuchrule y\n' > "$bad/build.ninja"
unreadable_manifest() {
  local status=0
  "$FASTCUDA" ninja -C "$bad" > "$scratch/bad.out" 2> "$scratch/bad.err" || status=$?
  [ "$status" -eq 2 ] || echo "  exit status $status, expected 2"
  [ "$status" -eq 2 ] && grep -Eq 'build\.ninja:3:[0-9]+: ' "$scratch/bad.err" && [ ! -e "$bad/.fastcuda" ]
}
check_any_tools "a syntax error on line 3: exit 2, build.ninja:3:COL: on stderr, no .fastcuda written" unreadable_manifest

# --- 3. Exit codes and arguments passed through ------------------------------
unknown_target_like_ninja() {
  local fc_status=0 ninja_status=0
  "$FASTCUDA" ninja -C "$ext" nonexistent_target > "$scratch/unknown-fc.log" 2>&1 || fc_status=$?
  ninja -C "$ext" nonexistent_target > "$scratch/unknown-ninja.log" 2>&1 || ninja_status=$?
  [ "$fc_status" -eq "$ninja_status" ] && [ "$fc_status" -eq 1 ] &&
    grep -q "unknown target 'nonexistent_target'" "$scratch/unknown-fc.log"
}
check "an unknown target: exit 1 like ninja, with ninja's 'unknown target' message" unknown_target_like_ninja

# --- 3b. A source that another edge of the manifest generates ----------------
# The rewrite meets it missing; its steps must still wait for its generator
# (slow here, so that a step that did not wait would run first and fail).
gen=$scratch/generated-source
mkdir -p "$gen"
printf '__global__ void generated(int *p) { p[0] = VALUE; }\n' > "$gen/template.cu.in"
cat > "$gen/build.ninja" <<NINJA
rule generate
  command = sleep 2 && sed s/VALUE/\$value/ \$in > \$out
rule nvcc
  command = $NVCC -arch=sm_80 -c \$in -o \$out
build gen.cu: generate template.cu.in
  value = 7
build gen.o: nvcc gen.cu
NINJA
generated_source_waits() {
  fc_ninja "$scratch/gen.log" "$gen" -j 4 && ran_split "$scratch/gen.log" gen.cu &&
    "$NVCC" -arch=sm_80 -c "$gen/gen.cu" -o "$scratch/gen-nvcc.o" && same_object "$gen/gen.o" "$scratch/gen-nvcc.o"
}
check "a .cu that the manifest generates, missing at the rewrite: its steps wait for it; object equals nvcc's" \
  generated_source_waits
regenerated_source_rebuilt() {
  sleep 1  # a coarse-mtime file system must see the template as newer
  sed -i 's/p\[0\]/p[1]/' "$gen/template.cu.in"
  fc_ninja "$scratch/gen2.log" "$gen" -j 4 && ran_split "$scratch/gen2.log" gen.cu &&
    "$NVCC" -arch=sm_80 -c "$gen/gen.cu" -o "$scratch/gen-nvcc.o" && same_object "$gen/gen.o" "$scratch/gen-nvcc.o"
}
check "the generator's input edited: the source is made again, then its steps run; object equals nvcc's" \
  regenerated_source_rebuilt

# --- 4. A CMake project without the FastCuda module --------------------------
project=$scratch/cmake-src
mkdir -p "$project/include"
cat > "$project/CMakeLists.txt" <<'CMAKE'
cmake_minimum_required(VERSION 3.18)
set(CMAKE_CUDA_ARCHITECTURES 80)
project(x LANGUAGES CXX CUDA)
add_library(kern STATIC a.cu b.cu)
target_include_directories(kern PUBLIC include)
add_executable(app main.cpp)
target_link_libraries(app PRIVATE kern)
CMAKE
printf '#pragma once\n__device__ inline float twice(float x) { return 2.f * x; }\nvoid launch_a(float *x);\nvoid launch_b(float *x);\n' \
  > "$project/include/kern.cuh"
cat > "$project/a.cu" <<'C'
#include "kern.cuh"
#ifndef SCALE
#define SCALE 1
#endif
__global__ void ka(float *x) { x[threadIdx.x] = SCALE * twice(x[threadIdx.x]); }
void launch_a(float *x) { ka<<<1, 32>>>(x); }
C
# b.cu does not include kern.cuh: a header edit reruns one TU's steps (enough
# to see the no-op's dry run give way), not two.
cat > "$project/b.cu" <<'C'
__global__ void kb(float *x) { x[threadIdx.x] = 2.f * x[threadIdx.x] + 1.f; }
void launch_b(float *x) { kb<<<1, 32>>>(x); }
C
printf 'void launch_a(float *x);\nvoid launch_b(float *x);\nint main() { launch_a(nullptr); launch_b(nullptr); }\n' \
  > "$project/main.cpp"
cmake_configure() {  # BUILD-DIR: the second takes the first's compilers (known_compilers)
  cmake -S "$project" -B "$1" -G Ninja -DCMAKE_CUDA_COMPILER="$NVCC" $(known_compilers "$scratch/cmake-plain" "$1") \
    > "$1.configure.log" 2>&1
}
cmake_objects_like_plain() {
  local obj
  for obj in a.cu.o b.cu.o; do
    same_object "$scratch/cmake-fc/CMakeFiles/kern.dir/$obj" "$scratch/cmake-plain/CMakeFiles/kern.dir/$obj" ||
      { echo "  differs: $obj"; return 1; }
  done
}
cmake_configure "$scratch/cmake-plain"
cmake_configure "$scratch/cmake-fc"
cmake --build "$scratch/cmake-plain" -j 2 > "$scratch/cmake-plain.log" 2>&1
cmake_builds() {
  fc_ninja "$scratch/cmake-fc.log" "$scratch/cmake-fc" || return 1
  [ -x "$scratch/cmake-fc/app" ] && ran_split "$scratch/cmake-fc.log" a.cu b.cu && cmake_objects_like_plain
}
check "CMake (no module): fastcuda ninja builds, split; CUDA objects equal a plain build's" cmake_builds
check "CMake (no module): the first build weighed each TU's device code first, then ran every step once" \
  every_step_once "$scratch/cmake-fc/.fastcuda"
cmake_no_work() { no_work "$scratch/cmake-fc2.log" "$scratch/cmake-fc"; }
check "CMake (no module): a second fastcuda ninja runs no step, a third has no work" cmake_no_work

# A build with nothing to do is told by plain Ninja's dry run of CMake's own
# manifest (through .fastcuda/noop.ninja): no Ninja loads the rewrite with its
# steps. What would rerun a step still builds, through the rewrite.
cat > "$scratch/logging-ninja" <<SH
#!/bin/sh
echo "\$*" >> "$scratch/ninja-calls"
exec $(command -v ninja) "\$@"
SH
chmod +x "$scratch/logging-ninja"
logged_fc_ninja() {  # LOG: fastcuda ninja of the CMake build, each Ninja it runs in ninja-calls
  : > "$scratch/ninja-calls"
  FASTCUDA_NINJA="$scratch/logging-ninja" fc_ninja "$1" "$scratch/cmake-fc"
}
ran_rewrite() { grep -q -- '-f \.fastcuda/build\.ninja' "$scratch/ninja-calls"; }
cmake_noop_by_plain_ninja() {
  logged_fc_ninja "$scratch/noop-plain.log" && grep -q "no work to do" "$scratch/noop-plain.log" &&
    ! ran_rewrite && grep -q -- '-f \.fastcuda/noop\.ninja -n' "$scratch/ninja-calls" &&
    [ "$(wc -l < "$scratch/ninja-calls")" = 1 ]
}
check "CMake (no module): a no-op is plain Ninja's dry run of CMake's manifest alone; the rewrite is not loaded" \
  cmake_noop_by_plain_ninja
cmake_noop_then_edits() {
  sleep 1
  cp -p "$project/include/kern.cuh" "$scratch/kern.cuh.saved"
  sed -i 's/2\.f/4.f/' "$project/include/kern.cuh"
  logged_fc_ninja "$scratch/noop-edit.log" && ran_rewrite && ran_split "$scratch/noop-edit.log" a.cu &&
    logged_fc_ninja "$scratch/noop-edit2.log" && ! ran_rewrite &&
    cp -p "$scratch/kern.cuh.saved" "$project/include/kern.cuh" &&  # the old text, with its older mtime
    logged_fc_ninja "$scratch/noop-restore.log" && ran_rewrite && ran_split "$scratch/noop-restore.log" a.cu &&
    CPATH="$project/include" logged_fc_ninja "$scratch/noop-cpath.log" && ran_rewrite &&
    ran_split "$scratch/noop-cpath.log" a.cu b.cu && logged_fc_ninja "$scratch/noop-cpath2.log" && ran_rewrite &&
    rm "$scratch/cmake-fc/CMakeFiles/kern.dir/b.cu.o" && logged_fc_ninja "$scratch/noop-rm.log" && ran_rewrite &&
    [ -f "$scratch/cmake-fc/CMakeFiles/kern.dir/b.cu.o" ] && cmake_objects_like_plain
}
check "CMake (no module): after such no-ops, a header edit, its undoing with cp -p, CPATH and a removed object build" \
  cmake_noop_then_edits

# Every edge FastCuda did not split is Ninja's own in both manifests: same
# commands (`ninja -t commands` of the app, less the CUDA objects' own), and
# the same inputs and outputs of the link edges (`ninja -t query`).
cmake_edges_kept() (
  cd "$scratch/cmake-fc" || return 1
  local target
  # One Ninja after the other: two that find the log due for compaction at
  # once race to rewrite it ("opening build log").
  for target in app libkern.a; do
    ninja -t query "$target" > "$scratch/query-plain" && ninja -f .fastcuda/build.ninja -t query "$target" > "$scratch/query-fc" &&
      cmp -s "$scratch/query-plain" "$scratch/query-fc" || { echo "  ninja -t query $target differs"; return 1; }
  done
  ninja -t commands app | grep -v -- '-c [^ ]*\.cu ' > "$scratch/commands-plain" &&
    ninja -f .fastcuda/build.ninja -t commands app | grep -v 'fastcuda \(step\|merge-depfiles\)' > "$scratch/commands-fc" &&
    cmp -s "$scratch/commands-plain" "$scratch/commands-fc"
)
check "CMake (no module): the edges it did not split read as Ninja reads the generator's (-t query, -t commands)" \
  cmake_edges_kept

cmake_reruns() {
  sleep 1  # a coarse-mtime file system must see CMakeLists.txt as newer
  cp "$scratch/cmake-plain/CMakeFiles/kern.dir/a.cu.o" "$scratch/old-a.o"
  echo 'target_compile_definitions(kern PRIVATE SCALE=3)' >> "$project/CMakeLists.txt"
  cmake --build "$scratch/cmake-plain" -j 2 > "$scratch/cmake-plain2.log" 2>&1 &&
    device_code_differs "$scratch/old-a.o" "$scratch/cmake-plain/CMakeFiles/kern.dir/a.cu.o" &&
    fc_ninja "$scratch/cmake-rerun.log" "$scratch/cmake-fc" && grep -q "Re-running CMake" "$scratch/cmake-rerun.log" &&
    ran_split "$scratch/cmake-rerun.log" a.cu && cmake_objects_like_plain
}
check "CMake (no module): CMakeLists.txt edited: CMake reruns through its edge, the new definition is built" cmake_reruns

# CONFIGURE_DEPENDS: CMake's glob check runs in every build, for real, before
# the dry run; a new source in the globbed directory reruns CMake once (its
# log record handed to Ninja's log) and is built.
cmake_globbed_source() {
  mkdir -p "$project/extra"
  echo 'file(GLOB extra CONFIGURE_DEPENDS extra/*.cu)' >> "$project/CMakeLists.txt"
  echo 'target_sources(kern PRIVATE ${extra})' >> "$project/CMakeLists.txt"
  fc_ninja "$scratch/glob.log" "$scratch/cmake-fc" && logged_fc_ninja "$scratch/glob-noop.log" &&
    grep -q "no work to do" "$scratch/glob-noop.log" && ! ran_rewrite &&
    grep -q -- '-f \.fastcuda/noop-regeneration\.ninja' "$scratch/ninja-calls" || return 1
  printf '__global__ void kc(float *x) { x[0] = 3.f; }\n' > "$project/extra/c.cu"
  logged_fc_ninja "$scratch/glob-new.log" && ran_split "$scratch/glob-new.log" c.cu &&
    [ "$(grep -c "Re-running CMake" "$scratch/glob-new.log")" = 1 ] &&
    logged_fc_ninja "$scratch/glob-noop2.log" && grep -q "no work to do" "$scratch/glob-noop2.log" && ! ran_rewrite
}
check "CMake (no module): CONFIGURE_DEPENDS: no-ops check the globs; a new source reruns CMake once and builds" \
  cmake_globbed_source

# A host compiler that is a script (CMAKE_CUDA_HOST_COMPILER, nvcc's -ccbin,
# as toolchains in containers install them) is an input of the steps that
# run it: plain Ninja's dry run still answers a no-op (the script's identity
# is checked before it), and a changed script builds again.
cat > "$scratch/host-g++" <<SH
#!/bin/sh
exec $(command -v g++) "\$@"
SH
chmod +x "$scratch/host-g++"
# A project of one TU (a.cu): each build here compiles every TU.
ccbin_project=$scratch/ccbin-src
mkdir -p "$ccbin_project"
cp -R "$project/include" "$project/a.cu" "$ccbin_project/"
cat > "$ccbin_project/CMakeLists.txt" <<'CMAKE'
cmake_minimum_required(VERSION 3.18)
set(CMAKE_CUDA_ARCHITECTURES 80)
project(x LANGUAGES CUDA)
add_library(kern STATIC a.cu)
target_include_directories(kern PUBLIC include)
CMAKE
cmake -S "$ccbin_project" -B "$scratch/cmake-ccbin" -G Ninja -DCMAKE_CUDA_COMPILER="$NVCC" \
  -DCMAKE_CUDA_HOST_COMPILER="$scratch/host-g++" > "$scratch/cmake-ccbin.configure.log" 2>&1
ccbin_noop() {
  grep -q -- "-ccbin=$scratch/host-g++" "$scratch/cmake-ccbin/CMakeFiles/rules.ninja" &&
    fc_ninja "$scratch/ccbin.log" "$scratch/cmake-ccbin" && ran_split "$scratch/ccbin.log" a.cu &&
    FASTCUDA_VERBOSE=1 fc_ninja "$scratch/ccbin-noop.log" "$scratch/cmake-ccbin" &&
    grep -q "no work to do" "$scratch/ccbin-noop.log" && ! grep -q "long way" "$scratch/ccbin-noop.log" || return 1
  sleep 1
  echo "# the toolchain's update" >> "$scratch/host-g++"
  fc_ninja "$scratch/ccbin-changed.log" "$scratch/cmake-ccbin" && ran_split "$scratch/ccbin-changed.log" a.cu
}
check "CMake (no module): with a host compiler script, a no-op is plain Ninja's; a changed script builds" ccbin_noop

finish

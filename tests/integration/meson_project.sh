#!/usr/bin/env bash
# `fastcuda ninja` on a Meson project (tests/integration/meson_project, see its
# meson.build: a static CUDA library of two TUs sharing a header, one of them
# including a header that a custom_target generates; a shared library of
# relocatable device code that nvcc device-links; a C++ executable that nvcc
# links), configured twice with the meson on PATH (Debian's 1.0 in CI):
# build/ built with fastcuda ninja only, build2/ with plain ninja only, as the
# reference. Checks: every .cu split into steps, none compiled whole, objects
# equal plain ninja's, the executable links and runs, FASTCUDA_VERBOSE=1 keeps
# no compile edge whole, then no work; what Ninja's deps record for an object
# (Meson 1.0 passes nvcc no -MD: nothing, plain or split; later Meson: the
# header); edits: the shared header reruns only the TUs that include it, the
# custom target's input regenerates its header and reruns only the TU that
# includes it, meson.build reruns Meson through its own edge
# (REGENERATE_BUILD), builds the new define, and reruns only the TUs whose
# flags changed. Skipped, with one line, where meson is not installed
# (cmake/bootstrap.sh installs it).
#
# usage: meson_project.sh FASTCUDA_BINARY [NVCC]
set -euo pipefail
if ! command -v meson > /dev/null; then
  echo "meson_project: skipped, meson is not installed (cmake/bootstrap.sh installs it)"
  exit 0
fi
project_dir=$(realpath "$(dirname "${BASH_SOURCE[0]}")/meson_project")
source "$(dirname "${BASH_SOURCE[0]}")/checks.sh" meson_project "$@"
cd "$scratch"

src=$scratch/src      # a copy of the project: the checks edit it
build=$scratch/build  # built with fastcuda ninja only
ref=$scratch/build2   # the same sources, built with plain ninja only
cp -R "$project_dir" "$src"
objects=(libplain.a.p/plain_a.cu.o libplain.a.p/plain_b.cu.o librdc.so.p/rdc_dev.cu.o librdc.so.p/rdc_use.cu.o)
# No sanity check of the compilers (nvcc compiles, links and runs a program
# at each setup, 4 of a setup's 5 CPU seconds): it checks the toolchain, not
# FastCuda, and Meson writes the same build.ninja without it.
printf "[binaries]\ncuda = '%s'\ncpp = 'c++'\n[properties]\nskip_sanity_check = true\n" "$NVCC" > "$scratch/native.ini"
for dir in "$build" "$ref"; do
  meson setup --native-file "$scratch/native.ini" "$src" "$dir" > "$dir.setup.log" 2>&1 ||
    { echo "meson setup $dir failed:"; cat "$dir.setup.log"; exit 1; }
done
echo "  $(meson --version | sed 's/^/meson /'), $(ninja --version | sed 's/^/ninja /')"

fc_ninja() {  # LOG [ARGS...]: `fastcuda ninja -C build -j 2 ARGS...`, output in LOG; its status
  local log=$1; shift
  "$FASTCUDA" ninja -C "$build" -j 2 "$@" > "$log" 2>&1
}
status_lines() { grep -E '^\[[0-9]+/[0-9]+\] ' "$1" || true; }  # LOG: Ninja's edge lines
# LOG ERE: an edge line of LOG matches (grep reads all: no SIGPIPE under pipefail)
ran() { status_lines "$1" | grep -E "$2" > /dev/null; }
# LOG: the TUs whose steps ran, one basename a line, sorted; a Meson compile
# edge that ran whole shows as "whole:OBJECT".
tus_ran() {
  status_lines "$1" | sed -E 's/^\[[0-9]+\/[0-9]+\] //' | awk '
    /^(CPP_HOST|CPP_DEVICE|CUDAFE|CICC|PTXAS|NVLINK|FATBINARY|HOST_CC)( |$)/ { n = split($NF, p, "/"); print p[n]; next }
    /^Compiling Cuda object / { print "whole:" $NF }' | sort -u | tr '\n' ' ' | sed 's/ $//'
}
expect_tus() {  # LOG WANTED: the TUs that ran are exactly WANTED ("a.cu b.cu")
  local got; got=$(tus_ran "$1")
  [ "$got" = "$2" ] || { echo "  TUs run: '$got', expected '$2'"; return 1; }
}
ran_split() {  # LOG SOURCE...: the build in LOG ran a cicc step of each SOURCE
  local source
  for source in "${@:2}"; do
    ran "$1" "\] CICC .*/${source//./\\.}\$" || { echo "  no CICC step of $source in $1"; return 1; }
  done
}
fatbin() { objcopy -O binary --only-section=.nv_fatbin --only-section=__nv_relfatbin "$1" "$2"; }
device_code_differs() {  # OBJECT-A OBJECT-B: both have device code, and it differs
  fatbin "$1" "$scratch/a.fb" && fatbin "$2" "$scratch/b.fb" && [ -s "$scratch/a.fb" ] && [ -s "$scratch/b.fb" ] &&
    ! cmp -s "$scratch/a.fb" "$scratch/b.fb"
}
# nvcc's objects for the sources as they are now. Meson 1.0 passes nvcc no -MD,
# so plain ninja would not see a header change: the reference's objects that
# the edit can change (OBJECT..., those of the TUs that include the edited
# file) are removed first. The others' sources are as they were when plain
# ninja made them: built again, they would come out the same (nvcc's
# seconds are CI's time).
reference_build() {
  local object
  for object in "$@"; do rm "$ref/$object"; done
  ninja -C "$ref" -j 2 > "$scratch/ref.log" 2>&1 || { echo "  plain ninja failed:"; tail -20 "$scratch/ref.log"; return 1; }
}
objects_like_plain() {
  local object
  for object in "${objects[@]}"; do
    same_object "$build/$object" "$ref/$object" || { echo "  differs from plain ninja's: $object"; return 1; }
  done
}
keep_reference() {  # OBJECT...: copies of plain ninja's objects as they are, to see an edit change them
  local object
  for object in "$@"; do cp "$ref/$object" "$scratch/old-$(basename "$object")"; done
}
references_changed() {  # OBJECT...: the edit changed nvcc's device code of each (else a stale object would pass)
  local object
  for object in "$@"; do
    device_code_differs "$scratch/old-$(basename "$object")" "$ref/$object" ||
      { echo "  the edit changed no device code of $object"; return 1; }
  done
}

# --- 1. The clean build ------------------------------------------------------
reference_build
first_status=0
FASTCUDA_VERBOSE=1 fc_ninja "$scratch/first.log" || first_status=$?
builds_split() {
  [ "$first_status" -eq 0 ] || { echo "  fastcuda ninja failed:"; tail -20 "$scratch/first.log"; return 1; }
  ran_split "$scratch/first.log" a.cu b.cu dev.cu use.cu && expect_tus "$scratch/first.log" "a.cu b.cu dev.cu use.cu" &&
    ran "$scratch/first.log" '\] Generating factor_h' &&
    ran "$scratch/first.log" '\] Linking target librdc\.so$' &&
    ran "$scratch/first.log" '\] Linking target app$'
}
check "clean build: every .cu split into steps (CICC...), none compiled whole; the custom target and links ran" builds_split
check "clean build: each CUDA object equals plain ninja's (build2)" objects_like_plain
app_links() {
  # nvcc's device link of librdc.so defines the registration that use.cu's
  # object calls (__cudaRegisterLinkedBinary_<module id>)
  [ -x "$build/app" ] && "$build/app" && nm -D --defined-only "$build/librdc.so" > "$scratch/dynamic.nm" &&
    nm --defined-only "$build/librdc.so" > "$scratch/all.nm" && grep -qw '_Z10launch_usePf' "$scratch/dynamic.nm" &&
    grep -Eq ' T __cudaRegisterLinkedBinary_[0-9a-f]+_[0-9]+_use_cu_' "$scratch/all.nm"
}
check "the executable links (librdc.so device-linked by nvcc) and runs" app_links

# --- 5 (from the first build's output). Edges kept whole ----------------------
kept=$(grep 'nvcc runs whole for' "$scratch/first.log" || true)
echo "  FASTCUDA_VERBOSE=1 said:"
sed 's/^/    /' <<< "${kept:-(no edge kept whole)}"
no_compile_kept() {
  # The kept edges may be nvcc's links (librdc.so, app); no .cu object's edge.
  ! grep -E 'nvcc runs whole for [^:]*\.cu\.o:' <<< "$kept" &&
    ! ran "$scratch/first.log" 'Compiling Cuda object'
}
check "FASTCUDA_VERBOSE=1: no CUDA compile edge kept whole (nvcc's links may be)" no_compile_kept

# --- 2. No work ----------------------------------------------------------------
# The first build's step times arrive: the next build regenerates the
# graph with the priority ladder under Ninja 1.12+ (its rungs run no step),
# and the one after has nothing to do.
second_no_work() {
  fc_ninja "$scratch/second.log" && [ -z "$(steps_run "$scratch/second.log")" ] &&
    fc_ninja "$scratch/third.log" && grep -q "no work to do" "$scratch/third.log"
}
check "a second fastcuda ninja -C build runs no step (at most the ladder's rungs), a third has no work" second_no_work
# Plain ninja finds the objects fastcuda ninja made up to date, also where
# Meson's nvcc rule has Ninja read a depfile that nvcc is not asked to write
# (Meson 1.0): Ninja wants a deps record, empty, for each object.
plain_no_work() { ninja -C "$build" > "$scratch/plain.log" 2>&1 && grep -q "no work to do" "$scratch/plain.log"; }
check "then plain ninja -C build has no work" plain_no_work

# --- 4. Ninja's deps for a .cu object -----------------------------------------
# Meson writes deps = gcc in its CUDA rule, but Meson 1.0 passes nvcc no -MD
# (later versions pass -MD -MT -MF): then no depfile is written and Ninja
# records no header for the object, plain ninja or not. fastcuda ninja's
# preprocessing steps record their own.
if ninja -C "$ref" -t commands -s libplain.a.p/plain_a.cu.o | grep -- ' -MD ' > /dev/null; then
  deps_list_header() {
    "$FASTCUDA" ninja -C "$build" -t deps libplain.a.p/plain_a.cu.o > "$scratch/deps.txt" 2>&1 &&
      ninja -C "$build" -t deps libplain.a.p/plain_a.cu.o > "$scratch/deps-plain.txt" 2>&1 &&
      grep -q 'include/shared\.cuh$' "$scratch/deps.txt" && grep -q 'include/shared\.cuh$' "$scratch/deps-plain.txt"
  }
  check "ninja -t deps (and fastcuda ninja -t deps) list include/shared.cuh for plain_a.cu.o" deps_list_header
else
  echo "  note: Meson $(meson --version)'s nvcc compile writes no depfile (no -MD): Ninja records no header of a CUDA object"
  steps_deps_list_header() {
    local tus
    ninja -C "$ref" -t deps libplain.a.p/plain_a.cu.o > "$scratch/deps-plain.txt" 2>&1 &&
      grep -q '#deps 0' "$scratch/deps-plain.txt" &&
      "$FASTCUDA" ninja -C "$build" -t deps > "$scratch/deps.txt" 2>&1 || return 1
    # The TUs whose steps' deps name the header (a step's first output -> its
    # description, from the graph fastcuda ninja wrote).
    tus=$(awk 'FNR == NR { if (/^build /) { out = $2; sub(/:$/, "", out) }
                           if (/^  desc = /) { n = split($NF, p, "/"); tu[out] = p[n] }
                           next }
               /^[^ ].*: #deps / { target = $1; sub(/:$/, "", target); next }
               /include\/shared\.cuh$/ && (target in tu) { print tu[target] }' \
            <(expanded_manifest "$build/.fastcuda/steps.ninja") "$scratch/deps.txt" | sort -u | tr '\n' ' ')
    [ "$tus" = "a.cu b.cu " ] || { echo "  TUs whose steps' deps list include/shared.cuh: '$tus'"; return 1; }
  }
  check "plain ninja's deps of plain_a.cu.o are empty; fastcuda ninja -t deps lists include/shared.cuh for steps of a.cu and b.cu only" \
    steps_deps_list_header
fi

# --- 3. Minimal rebuilds after edits -------------------------------------------
write_shared() {  # FACTOR
  printf '#pragma once\n#define SHARED_FACTOR %s\n__device__ inline float twice(float x) { return SHARED_FACTOR * x; }\n' \
    "$1" > "$src/include/shared.cuh"
}
header_edit() {
  local includers=(libplain.a.p/plain_a.cu.o libplain.a.p/plain_b.cu.o)
  keep_reference "${includers[@]}"
  write_shared 3.f
  reference_build "${includers[@]}" && references_changed "${includers[@]}" &&
    fc_ninja "$scratch/header.log" && expect_tus "$scratch/header.log" "a.cu b.cu" && objects_like_plain
}
check "include/shared.cuh edited: only a.cu's and b.cu's steps run; objects equal plain ninja's" header_edit

generator_edit() {
  keep_reference libplain.a.p/plain_b.cu.o
  echo 4.5f > "$src/factor.txt"
  reference_build libplain.a.p/plain_b.cu.o && references_changed libplain.a.p/plain_b.cu.o &&
    fc_ninja "$scratch/generator.log" && grep -q '^#define GEN_FACTOR 4.5f$' "$build/factor.h" &&
    ran "$scratch/generator.log" '\] Generating factor_h' &&
    expect_tus "$scratch/generator.log" "b.cu" && objects_like_plain
}
check "factor.txt edited: the custom target rewrites factor.h, only b.cu's steps run; objects equal plain ninja's" \
  generator_edit

# meson.build edited: -DSCALE=3.f for the plain library (a.cu's device code
# changes, b.cu's flags only).
sleep 1  # a coarse-mtime file system must see meson.build as newer
keep_reference libplain.a.p/plain_a.cu.o
sed -i "s/^plain_defines = \[\]/plain_defines = ['-DSCALE=3.f']/" "$src/meson.build"
grep -q "^plain_defines = \['-DSCALE=3.f'\]" "$src/meson.build"
reference_build libplain.a.p/plain_a.cu.o libplain.a.p/plain_b.cu.o
regenerate_status=0
FASTCUDA_VERBOSE=1 fc_ninja "$scratch/regenerate.log" || regenerate_status=$?
meson_regenerates() {
  [ "$regenerate_status" -eq 0 ] || { echo "  fastcuda ninja failed:"; tail -20 "$scratch/regenerate.log"; return 1; }
  references_changed libplain.a.p/plain_a.cu.o &&
    ran "$scratch/regenerate.log" '\] Regenerating build files' &&
    grep -q -- '-DSCALE=3.f' "$build/build.ninja" && ran_split "$scratch/regenerate.log" a.cu &&
    ! ran "$scratch/regenerate.log" 'Compiling Cuda object' &&
    ! grep -E 'nvcc runs whole for [^:]*\.cu\.o:' "$scratch/regenerate.log" && objects_like_plain &&
    fc_ninja "$scratch/regenerate2.log" && grep -q "no work to do" "$scratch/regenerate2.log"
}
check "meson.build edited (-DSCALE=3.f): Meson reruns through REGENERATE_BUILD, a.cu rebuilt split, objects equal plain ninja's, then no work" \
  meson_regenerates
only_plain_tus_rerun() {
  # Meson's regeneration ends with `ninja -t restat` and `ninja -t cleandead`
  # on build.ninja; a TU whose command did not change must keep its steps.
  expect_tus "$scratch/regenerate.log" "a.cu b.cu" && return 0
  grep '^Cleaning\.\.\.' "$scratch/regenerate.log" | sed "s/^/  Meson's regeneration (ninja -t cleandead) said: /"
  return 1
}
check "meson.build edited: only the plain library's TUs (a.cu, b.cu) rerun steps, not the rdc library's" only_plain_tus_rerun

finish

#!/usr/bin/env bash
# A real CMake CUDA project, NVIDIA's CUDA samples, built every way of using
# FastCuda side by side (the variants of bench/lib.sh; NAME@make is NAME's
# configuration under the Unix Makefiles generator):
#   plain plain@make   CMake + nvcc as configured, Ninja and Makefiles
#   module module@make the module injected (CMAKE_PROJECT_INCLUDE), the same two
#   ninja              `fastcuda ninja` on plain's kind of build directory
#   launcher           CMAKE_CUDA_COMPILER_LAUNCHER=fastcuda
# VARIANTS="NAME[:REPEATS] ..." picks some (default all, REPEATS each).
# Scenarios, a round running every variant in turn:
#   clean   the first build of a fresh build directory (then its size, du)
#   noop    the build with nothing to do (3 runs each)
#   touch   after `touch` of one .cu (TOUCHED, default matrixMul's)
#   header  after a comment is appended to Common/helper_cuda.h, which most of
#           the samples' TUs include: the text the compilers see is the same
#   header_code  after a declaration is appended to it: the text is not
#   again   the build after that one, which should have nothing to do
# The samples come from SAMPLES_SOURCE (a checkout of
# github.com/NVIDIA/cuda-samples, kept outside this repository) or, without
# it, from the git directory SAMPLES_MIRROR (the fetched snapshot; read with
# `git archive HEAD`). The copy built is patched in two ways only: every
# `set(CMAKE_CUDA_ARCHITECTURES ...)` of the samples names ARCHS instead of
# their nine architectures, and Samples/CMakeLists.txt adds only the
# categories CATEGORIES names (default 0_Introduction). The samples'
# separable compilation (device links), custom nvcc -fatbin commands and
# per-sample project() calls stay as they are. At the end, each variant's
# objects (*.o, device links included) are checked against plain's for the
# same device code (.nv_fatbin, __nv_relfatbin under -rdc; the Makefile
# variants against plain@make, whose device links lie elsewhere), and each
# build's log is read for the edges it ran: no-op builds and the build
# after the last edit should run none (the module's one: its documented
# toolchain check).
# Usage: bench/real_project.sh [ARCHS] [REPEATS]
#   e.g. SAMPLES_SOURCE=$HOME/cuda-samples BENCH_JOBS=2 bench/real_project.sh 80 1
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
archs="${1:-80}"; repeats="${2:-1}"
categories="${CATEGORIES:-0_Introduction}"
touched="${TOUCHED:-Samples/0_Introduction/matrixMul/matrixMul.cu}"
header=Common/helper_cuda.h

mkdir -p "$work/corpus"
if [ -n "${SAMPLES_SOURCE:-}" ]; then
  (cd "$SAMPLES_SOURCE" && tar -cf - CMakeLists.txt cmake Common Samples/CMakeLists.txt \
     $(printf 'Samples/%s ' $categories)) | tar -xf - -C "$work/corpus"
elif [ -n "${SAMPLES_MIRROR:-}" ]; then
  git --git-dir="$SAMPLES_MIRROR" archive HEAD CMakeLists.txt cmake Common Samples/CMakeLists.txt \
    $(printf 'Samples/%s ' $categories) | tar -xf - -C "$work/corpus"
else
  echo "bench: set SAMPLES_SOURCE (a cuda-samples checkout) or SAMPLES_MIRROR (its git directory)" >&2
  exit 1
fi
find "$work/corpus" -name CMakeLists.txt -exec \
  sed -i "s/^\([[:space:]]*set(CMAKE_CUDA_ARCHITECTURES\)[[:space:]][^)]*)/\1 $archs)/" {} +
printf 'add_subdirectory(%s)\n' $categories > "$work/corpus/Samples/CMakeLists.txt"
[ -f "$work/corpus/$touched" ] || { echo "bench: no $touched in the samples" >&2; exit 1; }

parse_variants "${VARIANTS:-plain plain@make module module@make ninja launcher}" "$repeats"
generator_of() { case "$1" in *@make) echo "Unix Makefiles" ;; *) echo Ninja ;; esac; }
base_of() { case "$1" in *@make) echo plain@make ;; *) echo plain ;; esac; }
measure() {  # SCENARIO VARIANT: one timed build, its output kept; a failure is reported at the end
  timed "$work/$1.$2" build_variant "$2" || echo "$2: the $1 build failed (scratch: $work)" >> "$work/failures"
  cat "$work/last.log" >> "$work/$1.$2.output"
}
edges_run() {  # FILE: the edges a build's output says it ran (Ninja's [N/M] lines, make's
  # "[ N%] Building ..." and "Linking ..." lines; make's "Built target" lines run nothing)
  grep -cE '^\[[0-9]+/[0-9]+\] |^\[ *[0-9]+%\] (Building|Linking|Generating)' "$1" || true
}

for variant in "${variants[@]}"; do
  BENCH_GENERATOR=$(generator_of "$variant") configure_variant "$variant"
  measure clean "$variant"
  build_dir_kib "$variant" >> "$work/$variant.disk"
  for _ in 1 2 3; do measure noop "$variant"; done
done
change() {  # SCENARIO ROUND: the change its rebuild follows
  case "$1" in
    touch) touch "$work/corpus/$touched" ;;
    header) echo "// bench/real_project.sh: edit $2" >> "$work/corpus/$header" ;;
    header_code) echo "static const int real_project_edit_$2 = $2;" >> "$work/corpus/$header" ;;
  esac
}
for round in $(seq "$rounds"); do
  for scenario in touch header header_code again; do
    change "$scenario" "$round"
    for variant in "${variants[@]}"; do
      [ "$round" -gt "${repeats_of[$variant]}" ] || measure "$scenario" "$variant"
    done
  done
done

echo "$(machine_info)"
cu=$(find "$work/corpus/Samples" -name '*.cu' | wc -l)
echo "project: NVIDIA cuda-samples${SAMPLES_MIRROR:+ $(git --git-dir="$SAMPLES_MIRROR" rev-parse --short HEAD)}," \
     "categories: $categories ($cu .cu files), CUDA_ARCHITECTURES=$archs, $jobs jobs," \
     "medians of: ${VARIANTS:-all} ($repeats rounds; noop: 3 runs each)"
echo "touch: $touched; header: $header, included by" \
     "$(grep -rl --include='*.cu' helper_cuda.h "$work/corpus/Samples" | wc -l) of the $cu .cu files"
echo "(vs_plain: wall / plain's in the same scenario, under the same generator)"
for scenario in clean noop touch header header_code again; do
  summary_header "$scenario" plain
  for variant in "${variants[@]}"; do
    base="$work/$scenario.$(base_of "$variant")"
    [ -f "$work/$scenario.$variant" ] || { printf '%-20s failed\n' "$variant"; continue; }
    summary_row "$variant" "$work/$scenario.$variant" "$([ -f "$base" ] && median "$base" || echo 0)"
  done
done
echo "(build directory after the clean build; goal: at most twice plain's)"
plain_kib=$([ -s "$work/plain.disk" ] && median "$work/plain.disk" || echo 0)
for variant in "${variants[@]}"; do
  kib=$(median "$work/$variant.disk")
  printf '%-20s build dir %9.1f MiB  plain %9.1f MiB  ratio %s\n' "$variant" "$(ratio "$kib" 1024)" \
    "$(ratio "$plain_kib" 1024)" "$(ratio "$kib" "$plain_kib")"
done
for variant in "${variants[@]}"; do
  base=$(base_of "$variant")
  [ "$variant" != "$base" ] && [ -d "$work/$base" ] || continue
  echo "$variant: objects whose device code differs from $base's:" \
       "$(device_code_mismatches "$work/$base" "$work/$variant" '*.o')"
done
[ ! -s "$work/device-code.differs" ] || echo "differing: $(sed "s|^$work/||" "$work/device-code.differs" | paste -sd' ')"
for variant in "${variants[@]}"; do
  echo "$variant: edges run by its no-op builds: $(edges_run "$work/noop.$variant.output")," \
       "by its builds after the last edit: $(edges_run "$work/again.$variant.output")"
done
[ ! -f "$work/failures" ] || { cat "$work/failures"; exit 1; }

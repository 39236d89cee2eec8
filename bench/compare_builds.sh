#!/usr/bin/env bash
# Side-by-side clean builds of one corpus (bench/make_corpus.sh), in turn:
#   plain     CMake + Ninja, plain nvcc
#   threads0  CMake + Ninja, nvcc --threads 0
#   launcher  CMake + Ninja, CMAKE_CUDA_COMPILER_LAUNCHER=fastcuda (per TU)
#   graph     fastcuda build --compdb on CMake's compile_commands.json
#             (every sub-step of every TU in one Ninja graph)
#   module    CMake + Ninja with FastCuda injected into the unmodified
#             project (-DCMAKE_PROJECT_INCLUDE=cmake/FastCuda.cmake)
# VARIANTS="plain graph" (environment) picks some; default: all.
# Each is repeated; prints medians of wall and CPU time, ratios to the best
# of plain and threads0, and checks the graph's objects carry nvcc's device
# code. Usage: bench/compare_builds.sh N ARCHS [REPEATS] [MIX] [SEED]
#   e.g. bench/compare_builds.sh 48 "75-real;80-real;86-real;89-real;90-real" 3 mixed
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../cmake/bootstrap.sh"
count="$1"; archs="$2"; repeats="${3:-3}"; mix="${4:-mixed}"; seed="${5:-1}"
jobs="$(nproc)"
work="$(mktemp -d "$FASTCUDA_BUILD_DIR/bench-builds.XXXXXX")"
trap 'rm -rf "$work"' EXIT
"$(dirname "${BASH_SOURCE[0]}")/make_corpus.sh" "$work/corpus" "$count" "$archs" "$mix" "$seed"

configure() {  # NAME [CMAKE ARGS...]
  local name="$1"; shift
  rm -rf "$work/$name"
  cmake -S "$work/corpus" -B "$work/$name" -G Ninja -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_EXPORT_COMPILE_COMMANDS=ON "$@" >/dev/null
}

timed() {  # LOG COMMAND...: appends "wall cpu" seconds of one run to LOG
  local log="$1"; shift
  /usr/bin/time -f "%e %U %S" -o "$work/time.txt" "$@" >/dev/null 2>"$work/last.err" ||
    { cat "$work/last.err" >&2; return 1; }
  awk '{ printf "%s %.2f\n", $1, $2 + $3 }' "$work/time.txt" >> "$log"
}

run_variant() {  # NAME
  local name="$1"
  case "$name" in
    plain) configure plain; timed "$work/plain.times" cmake --build "$work/plain" -j "$jobs" ;;
    threads0) configure threads0 -DCMAKE_CUDA_FLAGS=--threads=0
              timed "$work/threads0.times" cmake --build "$work/threads0" -j "$jobs" ;;
    launcher) configure launcher -DCMAKE_CUDA_COMPILER_LAUNCHER="$FASTCUDA_BINARY"
              timed "$work/launcher.times" cmake --build "$work/launcher" -j "$jobs" ;;
    module) configure module -DCMAKE_PROJECT_INCLUDE="$FASTCUDA_SOURCE_DIR/cmake/FastCuda.cmake" \
              -DFASTCUDA_EXECUTABLE="$FASTCUDA_BINARY"
            timed "$work/module.times" cmake --build "$work/module" -j "$jobs" ;;
    graph) configure graph
           timed "$work/graph.times" "$FASTCUDA_BINARY" build --compdb "$work/graph/compile_commands.json" \
             --out "$work/graph/fastcuda" -j "$jobs" ;;
  esac
}

read -r -a variants <<< "${VARIANTS:-plain threads0 launcher graph module}"
for _ in $(seq "$repeats"); do
  for variant in "${variants[@]}"; do run_variant "$variant"; done
done

median() {  # FILE COLUMN
  awk -v c="$2" '{ print $c }' "$1" | sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'
}
best=$(for peer in plain threads0; do
  if [ -f "$work/$peer.times" ]; then median "$work/$peer.times" 1; fi
done | sort -n | head -1)
echo "corpus: $count TUs ($mix, seed $seed), CUDA_ARCHITECTURES=$archs, $jobs jobs, $repeats runs each (medians)"
printf '%-10s %9s %9s %12s\n' variant wall_s cpu_s vs_best_peer
for variant in "${variants[@]}"; do
  wall=$(median "$work/$variant.times" 1); cpu=$(median "$work/$variant.times" 2)
  awk -v n="$variant" -v w="$wall" -v c="$cpu" -v b="$best" 'BEGIN { printf "%-10s %9.2f %9.2f %12.3f\n", n, w, c, w / b }'
done

for variant in graph module; do
  if [ ! -d "$work/$variant" ] || [ ! -d "$work/plain" ]; then continue; fi
  mismatches=0
  while IFS= read -r object; do
    relative="${object#"$work/plain/"}"
    objcopy -O binary --only-section=.nv_fatbin "$object" "$work/a.fb"
    objcopy -O binary --only-section=.nv_fatbin "$work/$variant/$relative" "$work/b.fb"
    cmp -s "$work/a.fb" "$work/b.fb" || mismatches=$((mismatches + 1))
  done < <(find "$work/plain" -name '*.cu.o')
  echo "$variant: objects whose device code differs from nvcc's: $mismatches" \
       "(CUB objects may: cudafe++ puts a number that changes on every run into their module id)"
done

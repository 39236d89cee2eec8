#!/usr/bin/env bash
# The main demo: builds examples/particles (static, shared and rdc libraries,
# an executable, three GPU targets) once with plain CMake + nvcc and once
# with FastCuda injected into the unmodified project
# (-DCMAKE_PROJECT_INCLUDE=cmake/FastCuda.cmake: every CUDA sub-step of the
# project in one Ninja graph), prints both wall times, checks that every
# object carries the same device code, and, where a GPU is present, runs both
# programs and compares their output.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../cmake/bootstrap.sh"

demo_dir="$FASTCUDA_BUILD_DIR/demo"
example="$FASTCUDA_SOURCE_DIR/examples/particles"
jobs="$(nproc)"
rm -rf "$demo_dir"

build_example() {  # NAME [CMAKE ARGS...]; prints the clean build's wall time in seconds
  local name="$1"; shift
  cmake -S "$example" -B "$demo_dir/$name" -G Ninja -DCMAKE_BUILD_TYPE=Release "$@" >/dev/null
  local start end
  start=$(date +%s.%N)
  cmake --build "$demo_dir/$name" -j "$jobs" >/dev/null
  end=$(date +%s.%N)
  awk -v a="$start" -v b="$end" 'BEGIN { printf "%.3f", b - a }'
}

plain=$(build_example plain)
fast=$(build_example fastcuda -DCMAKE_PROJECT_INCLUDE="$FASTCUDA_SOURCE_DIR/cmake/FastCuda.cmake" \
  -DFASTCUDA_EXECUTABLE="$FASTCUDA_BINARY")
awk -v j="$jobs" -v p="$plain" -v f="$fast" \
  'BEGIN { printf "clean build, %s jobs: plain nvcc %.2f s, fastcuda %.2f s (speed-up %.2fx)\n", j, p, f, p / f }'

mismatches=0
while IFS= read -r object; do
  relative="${object#"$demo_dir/plain/"}"
  # Device code: .nv_fatbin, or __nv_relfatbin for relocatable device code.
  objcopy -O binary --only-section=.nv_fatbin --only-section=__nv_relfatbin "$object" "$demo_dir/a.fatbin"
  objcopy -O binary --only-section=.nv_fatbin --only-section=__nv_relfatbin \
    "$demo_dir/fastcuda/$relative" "$demo_dir/b.fatbin"
  if ! cmp -s "$demo_dir/a.fatbin" "$demo_dir/b.fatbin"; then
    echo "device code differs: $relative"
    mismatches=$((mismatches + 1))
  fi
done < <(find "$demo_dir/plain" -name '*.cu.o')
[ "$mismatches" -eq 0 ] && echo "device code: every object identical to nvcc's"

if nvidia-smi -L >/dev/null 2>&1; then
  "$demo_dir/plain/particles" > "$demo_dir/plain.out"
  "$demo_dir/fastcuda/particles" > "$demo_dir/fastcuda.out"
  cat "$demo_dir/fastcuda.out"
  if cmp -s "$demo_dir/plain.out" "$demo_dir/fastcuda.out"; then
    echo "program output: identical"
  else
    echo "program output differs"; mismatches=$((mismatches + 1))
  fi
else
  echo "no GPU here: programs built, not run"
fi
exit $((mismatches > 0))

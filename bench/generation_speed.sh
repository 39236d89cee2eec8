#!/usr/bin/env bash
# Generation speed of the global graph on a corpus of N TUs with the same
# flags: cold `fastcuda gen --compdb`, regeneration after one
# entry's flags changed, and a no-op regeneration. With --noop, also builds
# the corpus with CMake+Ninja and with `fastcuda build` and compares no-op
# `ninja` times (medians of 5). With --module, the same through
# cmake/FastCuda.cmake: generation from the database and options
# the module writes (CMake 4's absolute `output` included), the dryruns and
# shapes the first build ran, and no-op `ninja` of the module's build against
# the plain CMake build's (medians of 9).
# Usage: bench/generation_speed.sh [N] [--noop|--module]
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
count="${1:-1000}"
noop="${2:-}"

"$bench_dir/make_corpus.sh" "$work/corpus" "$count"
run_quietly cmake -S "$work/corpus" -B "$work/cmake" -G Ninja -DCMAKE_EXPORT_COMPILE_COMMANDS=ON
compdb="$work/cmake/compile_commands.json"

median5() {  # COMMAND...: median wall ms of 5 runs
  for _ in 1 2 3 4 5; do wall_ms "$@"; done > "$work/median5"
  median "$work/median5"
}

cold=$(wall_ms "$FASTCUDA_BINARY" gen --compdb "$compdb" --out "$work/graph")
noop_gen=$(median5 "$FASTCUDA_BINARY" gen --compdb "$compdb" --out "$work/graph")
# One entry gets another flag: its shape is new, so one more dryrun.
sed -i '0,/-c /s//-DONE_CHANGED -c /' "$compdb"
changed=$(wall_ms "$FASTCUDA_BINARY" gen --compdb "$compdb" --out "$work/graph")
echo "generation, $count TUs, $jobs cores: cold ${cold} ms, one entry changed ${changed} ms, nothing changed ${noop_gen} ms"

median9() {  # COMMAND...: median wall ms of 9 runs
  for _ in 1 2 3 4 5 6 7 8 9; do wall_ms "$@"; done > "$work/median9"
  median "$work/median9"
}

if [ "$noop" = "--module" ]; then
  module="$work/module"
  run_quietly cmake -S "$work/corpus" -B "$module" -G Ninja -DCMAKE_PROJECT_INCLUDE="$bench_dir/../cmake/FastCuda.cmake" \
    -DFASTCUDA_EXECUTABLE="$FASTCUDA_BINARY"
  read -ra module_args < "$module/fastcuda/build-args"
  gen_args=("${module_args[@]/#$module\/fastcuda/$work/module-graph}")
  module_cold=$(wall_ms "$FASTCUDA_BINARY" gen "${gen_args[@]}")
  module_again=$(median5 "$FASTCUDA_BINARY" gen "${gen_args[@]}")
  echo "through the module ($(cmake --version | head -1)), $count TUs: cold ${module_cold} ms, nothing changed ${module_again} ms"
  run_quietly cmake --build "$work/cmake" -j "$jobs"
  ninja -C "$module" -j "$jobs" > "$work/module-build.log" 2>&1
  grep -m1 'CUDA TUs' "$work/module-build.log"
  plain=$(median9 ninja -C "$work/cmake")
  fast=$(median9 ninja -C "$module")
  awk -v n="$count" -v p="$plain" -v f="$fast" 'BEGIN {
    printf "no-op ninja through the module, %d TUs: CMake+Ninja %.1f ms, with the module %.1f ms, difference %.1f ms (goal: at most 20)\n", n, p, f, f - p }'
fi

if [ "$noop" = "--noop" ]; then
  run_quietly cmake --build "$work/cmake" -j "$jobs"
  run_quietly "$FASTCUDA_BINARY" build --compdb "$compdb" --out "$work/graph"
  plain=$(median5 ninja -C "$work/cmake" corpus)
  fast=$(median5 ninja -C "$work/graph")
  awk -v n="$count" -v p="$plain" -v f="$fast" 'BEGIN {
    printf "no-op ninja, %d TUs: CMake+Ninja %.1f ms, FastCuda graph %.1f ms, difference %.1f ms\n", n, p, f, f - p }'
fi

#!/usr/bin/env bash
# Generation speed of the global graph on a corpus of N TUs with the same
# flags (issue 3): cold `fastcuda gen --compdb`, regeneration after one
# entry's flags changed, and a no-op regeneration. With --noop, also builds
# the corpus with CMake+Ninja and with `fastcuda build` and compares no-op
# `ninja` times (medians of 5).
# Usage: bench/generation_speed.sh [N] [--noop]
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

if [ "$noop" = "--noop" ]; then
  run_quietly cmake --build "$work/cmake" -j "$jobs"
  run_quietly "$FASTCUDA_BINARY" build --compdb "$compdb" --out "$work/graph"
  plain=$(median5 ninja -C "$work/cmake" corpus)
  fast=$(median5 ninja -C "$work/graph")
  awk -v n="$count" -v p="$plain" -v f="$fast" 'BEGIN {
    printf "no-op ninja, %d TUs: CMake+Ninja %.1f ms, FastCuda graph %.1f ms, difference %.1f ms\n", n, p, f, f - p }'
fi

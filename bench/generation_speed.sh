#!/usr/bin/env bash
# Generation speed of the global graph on a corpus of N TUs with the same
# flags (issue 3): cold `fastcuda gen --compdb`, regeneration after one
# entry's flags changed, and a no-op regeneration. With --noop, also builds
# the corpus with CMake+Ninja and with `fastcuda build` and compares no-op
# `ninja` times (medians of 5).
# Usage: bench/generation_speed.sh [N] [--noop]
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../cmake/bootstrap.sh"
count="${1:-1000}"
noop="${2:-}"
work="$(mktemp -d "$FASTCUDA_BUILD_DIR/bench-gen.XXXXXX")"
trap 'rm -rf "$work"' EXIT

"$(dirname "${BASH_SOURCE[0]}")/make_corpus.sh" "$work/corpus" "$count"
cmake -S "$work/corpus" -B "$work/cmake" -G Ninja -DCMAKE_EXPORT_COMPILE_COMMANDS=ON >/dev/null
compdb="$work/cmake/compile_commands.json"

ms() {  # COMMAND...: wall milliseconds of one run
  local start end
  start=$(date +%s%N)
  "$@" >/dev/null 2>&1
  end=$(date +%s%N)
  echo $(( (end - start) / 1000000 ))
}
median5() {  # COMMAND...: median of 5 runs
  for _ in 1 2 3 4 5; do ms "$@"; done | sort -n | sed -n 3p
}

cold=$(ms "$FASTCUDA_BINARY" gen --compdb "$compdb" --out "$work/graph")
noop_gen=$(median5 "$FASTCUDA_BINARY" gen --compdb "$compdb" --out "$work/graph")
# One entry gets another flag: its shape is new, so one more dryrun.
sed -i '0,/-c /s//-DONE_CHANGED -c /' "$compdb"
changed=$(ms "$FASTCUDA_BINARY" gen --compdb "$compdb" --out "$work/graph")
echo "generation, $count TUs, $(nproc) cores: cold ${cold} ms, one entry changed ${changed} ms, nothing changed ${noop_gen} ms"

if [ "$noop" = "--noop" ]; then
  cmake --build "$work/cmake" -j "$(nproc)" >/dev/null
  "$FASTCUDA_BINARY" build --compdb "$compdb" --out "$work/graph" >/dev/null
  plain=$(median5 ninja -C "$work/cmake" corpus)
  fast=$(median5 ninja -C "$work/graph")
  echo "no-op ninja, $count TUs: CMake+Ninja ${plain} ms, FastCuda graph ${fast} ms, difference $((fast - plain)) ms"
fi

#!/usr/bin/env bash
# The jobserver: under a parent's limit of 4 jobs, FastCuda's
# nested Ninja must run at most 4 steps at once. A clean build of a light
# corpus of N TUs under each of two parents:
#   make -j4   CMake's Unix Makefiles generator with the FastCuda module. GNU make
#              >= 4.4 hands out a fifo jobserver, which Ninja >= 1.13 joins
#              (FastCuda passes no -j); otherwise FastCuda passes make's -j4.
#   fifo pool  `fastcuda build` with MAKEFLAGS=--jobserver-auth=fifo:PATH and no
#              -jN, as a machine-wide jobserver gives: 3 tokens and the implicit
#              job. Only a Ninja that joins it stays within 4 (older ones: a job per core).
# Prints the most steps of FastCuda's graph that ran at once (its .ninja_log).
# Usage: bench/jobserver.sh [N] [ARCHS]
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
count="${1:-16}"; archs="${2:-80-real;90-real}"
"$bench_dir/make_corpus.sh" "$work/corpus" "$count" "$archs" light
ninja_version=$(ninja --version)
at_least() { [ "$(printf '%s\n%s\n' "$2" "$1" | sort -V | head -1)" = "$2" ]; }  # VERSION MINIMUM
verdict() {  # GRAPH_DIR: the most steps at once against the limit of 4
  local most
  most=$(max_concurrency "$1")
  echo "at most $most steps at once ($([ "$most" -le 4 ] && echo within || echo OVER) the limit of 4)"
}

if command -v make > /dev/null; then
  make_version=$(make --version | sed -n '1s/^GNU Make //p')
  BENCH_GENERATOR="Unix Makefiles" configure_variant module
  run_quietly cmake --build "$work/module" -j 4
  if at_least "$make_version" 4.4 && at_least "$ninja_version" 1.13; then how="fifo jobserver, Ninja joins it"
  else how="no fifo jobserver Ninja can join: FastCuda passes make's -j4"; fi
  echo "make -j4 (GNU Make $make_version, Ninja $ninja_version; $how): $(verdict "$work/module/fastcuda")"
else
  echo "make -j4: no make on this machine, skipped"
fi

configure_variant graph
mkfifo "$work/pool"
exec {pool}<>"$work/pool"  # read-write: the tokens stay while nobody reads them
printf '+++' >&"$pool"
MAKEFLAGS="--jobserver-auth=fifo:$work/pool" run_quietly "$FASTCUDA_BINARY" build \
  --compdb "$work/graph/compile_commands.json" --out "$work/graph/fastcuda"
exec {pool}>&-
if at_least "$ninja_version" 1.13; then how="Ninja joins it"; else how="Ninja cannot join it: one job per core, $jobs"; fi
echo "fifo pool of 4 (Ninja $ninja_version; $how): $(verdict "$work/graph/fastcuda")"

#!/usr/bin/env bash
# One clean build of a corpus through `fastcuda build --compdb` (the priority
# ladder ranks it: a first build, then, after `ninja -t clean`, the measured
# one), and its steps as `fastcuda table` gives them, to TABLE: the input of
# bench/simulate_schedule.py and bench/remote_scaling.py.
# Usage: bench/step_table.sh N ARCHS TABLE [MIX] [SEED]
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
count="$1"; archs="$2"; table="$3"; mix="${4:-mixed}"; seed="${5:-1}"
trap '[ "${BENCH_KEEP:-0}" = 1 ] || rm -rf "$work"' EXIT
"$bench_dir/make_corpus.sh" "$work/corpus" "$count" "$archs" "$mix" "$seed"
configure_variant graph
run_quietly build_variant graph
run_quietly ninja -C "$work/graph/fastcuda" -t clean
timed "$work/graph.log" build_variant graph > /dev/null
"$FASTCUDA_BINARY" table "$work/graph/fastcuda" > "$table"
machine_info
echo "corpus: $count TUs ($mix, seed $seed), CUDA_ARCHITECTURES=$archs, $jobs jobs: wall $(median "$work/graph.log") s," \
  "$(($(wc -l < "$table") - 1)) steps in $table"

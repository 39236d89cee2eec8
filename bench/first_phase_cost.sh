#!/usr/bin/env bash
# What a first build's first phase costs: one corpus built
# through the module in a fresh build directory with FASTCUDA_FIRST_PHASE=on,
# then the phase read back from its graph: how long the weighing ran, how
# busy the job slots were meanwhile (its steps' time over jobs x its wall),
# and the gap until the build's own Ninja started (estimates, regeneration,
# Ninja's start). ROUNDS builds, each in a fresh directory.
# Usage: bench/first_phase_cost.sh N ARCHS [ROUNDS] [MIX] [SEED]
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
count="$1"; archs="$2"; rounds="${3:-1}"; mix="${4:-mixed}"; seed="${5:-1}"
"$bench_dir/make_corpus.sh" "$work/corpus" "$count" "$archs" "$mix" "$seed"
machine_info
echo "corpus: $count TUs ($mix, seed $seed), CUDA_ARCHITECTURES=$archs, $jobs jobs"
printf '%-6s %12s %12s %10s %12s %10s\n' round "phase ms" "busy share" "gap ms" "build wall s" "÷ bound"
for round in $(seq "$rounds"); do
  configure_variant module
  FASTCUDA_FIRST_PHASE=on run_quietly build_variant module
  graph=$(graph_dir_of module)
  [ -f "$graph/first-phase" ] || { echo "no first phase in $graph"; exit 1; }
  read -r _ _ build_start < "$graph/first-phase"
  # The table's steps that started before the build's Ninja are the phase's.
  "$FASTCUDA_BINARY" table "$graph" | awk -F, -v start="$build_start" -v jobs="$jobs" -v round="$round" '
    NR > 1 && $6 < start { busy += $8; if ($7 > end) end = $7 }
    END { printf "%-6s %12d %12.2f %10d", round, end, busy / (jobs * end), start - end }'
  wall=$(report_seconds "$graph" wall) bound=$(report_seconds "$graph" bound)
  printf ' %12s %10s\n' "$wall" "$(ratio "$wall" "$bound")"
done

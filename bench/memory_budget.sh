#!/usr/bin/env bash
# Memory-aware scheduling on a heavy corpus (make_corpus.sh
# MIX, default heavy: every TU has CUB instances and unrolled kernels), clean
# builds at -j $(nproc):
#   threads0          CMake + nvcc --threads 0 (every architecture of a TU at once)
#   fastcuda first    `fastcuda build --compdb`, no history: per-kind guesses, default budget
# then, with the per-step peak memory that build recorded as history, clean
# rebuilds of the same graph (`ninja -t clean` keeps the logs), regenerated with
#   budget off        FASTCUDA_MEMORY_BUDGET=1T: no pool holds anything back
#   budget default    unset: three quarters of the memory available at generation
#   budget jobs/2     a budget that lets the heaviest memory class run jobs/2 steps at
#                     once: it binds (see the pools printed); also jobs/K for any K
# BUDGETS (environment) picks them, default "off default jobs/2". A budget
# whose pools are those of one already measured is not rebuilt.
# Prints medians of wall, CPU and peak system memory and the pools of each budget.
# Usage: bench/memory_budget.sh N ARCHS [REPEATS] [MIX]
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
count="$1"; archs="$2"; repeats="${3:-1}"; mix="${4:-heavy}"
"$bench_dir/make_corpus.sh" "$work/corpus" "$count" "$archs" "$mix"
graph="$work/graph/fastcuda"
compdb="$work/graph/compile_commands.json"
read -r -a budgets <<< "${BUDGETS:-off default jobs/2}"

budget_for_depth() {  # DEPTH: KiB that give the heaviest class of the history a pool of DEPTH
  # As the planner does: classes are powers of two from 256 MiB, each gets
  # an equal share of the budget.
  awk -F'\t' -v d="$1" '{ if ($2 > m[$1]) m[$1] = $2 }
    END { for (o in m) { c = 262144; while (c < m[o]) c *= 2; if (!(c in k)) { k[c]; n++ }; if (c > top) top = c }
          printf "%dK\n", n * top * d }' "$graph/step-memory.tsv"
}
pools() {  # the memory pools of the manifest, or "none"
  awk '/^pool fastcuda_mem_/ { name = $2 } name && /depth/ { printf "%s=%s ", name, $3; name = ""; n++ }
       END { if (!n) printf "none" }' "$graph/build.ninja"
}

configure_variant graph
for _ in $(seq "$repeats"); do
  configure_variant threads0
  timed "$work/log.threads0" build_variant threads0
  rm -rf "$graph"
  timed "$work/log.first" build_variant graph
  : > "$work/pools.seen"
  for setting in "${budgets[@]}"; do
    case "$setting" in
      off) budget=1T ;;
      default) budget="" ;;
      jobs/*) budget=$(budget_for_depth $(( jobs / ${setting#jobs/} > 0 ? jobs / ${setting#jobs/} : 1 ))) ;;
    esac
    log="$work/log.budget.${setting/\//_}"
    echo "${budget:-unset}" > "$log.budget"
    run_quietly env ${budget:+FASTCUDA_MEMORY_BUDGET=$budget} "$FASTCUDA_BINARY" gen --compdb "$compdb" --out "$graph" -j "$jobs"
    pools > "$log.pools"
    if grep -qxF "$(cat "$log.pools")" "$work/pools.seen"; then continue; fi
    cat "$log.pools" >> "$work/pools.seen"; echo >> "$work/pools.seen"
    run_quietly ninja -C "$graph" -t clean
    timed "$log" build_variant graph
  done
done

echo "corpus: $count TUs ($mix), CUDA_ARCHITECTURES=$archs, -j $jobs, medians of $repeats"
summary_header variant threads0
threads0=$(median "$work/log.threads0")
summary_row "threads0" "$work/log.threads0" "$threads0"
summary_row "fastcuda first" "$work/log.first" "$threads0"
for setting in "${budgets[@]}"; do
  log="$work/log.budget.${setting/\//_}"
  if [ -f "$log" ]; then summary_row "budget $setting" "$log" "$threads0"; else echo "budget $setting: same pools as a budget above, not rebuilt"; fi
done
for setting in "${budgets[@]}"; do
  log="$work/log.budget.${setting/\//_}"
  echo "budget $setting: FASTCUDA_MEMORY_BUDGET=$(cat "$log.budget"), pools: $(cat "$log.pools")"
done
echo "peak memory of the first FastCuda build / threads0: $(ratio "$(median "$work/log.first" 3)" "$(median "$work/log.threads0" 3)")"

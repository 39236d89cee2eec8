#!/usr/bin/env bash
# Memory-aware scheduling on a heavy corpus (make_corpus.sh
# MIX, default heavy: every TU has CUB instances and unrolled kernels), clean
# builds at -j $(nproc):
#   threads0          CMake + nvcc --threads 0 (every architecture of a TU at once)
#   fastcuda first    `fastcuda build --compdb`, no history: per-kind guesses, default budget
# then, with the per-step peak memory that build recorded as history, clean
# rebuilds of the same graph (`ninja -t clean` keeps the logs), regenerated with
#   budget off        FASTCUDA_MEMORY_BUDGET=1T: no step waits for memory
#   budget default    unset: three quarters of the memory available at generation
#   budget jobs/2     a budget that lets jobs/2 steps of the heaviest kind run at
#                     once (each expected at its peak plus a quarter): it binds;
#                     also jobs/K for any K
# BUDGETS (environment) picks them, default "off default jobs/2". A budget
# equal to one already measured is not rebuilt.
# Prints medians of wall, CPU and peak system memory and each budget.
# Usage: bench/memory_budget.sh N ARCHS [REPEATS] [MIX]
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
count="$1"; archs="$2"; repeats="${3:-1}"; mix="${4:-heavy}"
"$bench_dir/make_corpus.sh" "$work/corpus" "$count" "$archs" "$mix"
graph="$work/graph/fastcuda"
compdb="$work/graph/compile_commands.json"
read -r -a budgets <<< "${BUDGETS:-off default jobs/2}"

budget_for_depth() {  # DEPTH: KiB in which DEPTH steps at the history's highest peak fit, as
  # the ledger expects them (a quarter over the peak)
  awk -F'\t' -v d="$1" '$2 > top { top = $2 } END { printf "%dK\n", top * 5 / 4 * d }' "$graph/step-memory.tsv"
}

configure_variant graph
for _ in $(seq "$repeats"); do
  configure_variant threads0
  timed "$work/log.threads0" build_variant threads0
  rm -rf "$graph"
  timed "$work/log.first" build_variant graph
  : > "$work/budgets.seen"
  for setting in "${budgets[@]}"; do
    case "$setting" in
      off) budget=1T ;;
      default) budget="" ;;
      jobs/*) budget=$(budget_for_depth $(( jobs / ${setting#jobs/} > 0 ? jobs / ${setting#jobs/} : 1 ))) ;;
    esac
    log="$work/log.budget.${setting/\//_}"
    echo "${budget:-unset}" > "$log.budget"
    run_quietly env ${budget:+FASTCUDA_MEMORY_BUDGET=$budget} "$FASTCUDA_BINARY" gen --compdb "$compdb" --out "$graph" -j "$jobs"
    if grep -qxF "${budget:-unset}" "$work/budgets.seen"; then continue; fi
    echo "${budget:-unset}" >> "$work/budgets.seen"
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
  if [ -f "$log" ]; then summary_row "budget $setting" "$log" "$threads0"; else echo "budget $setting: the same as a budget above, not rebuilt"; fi
done
for setting in "${budgets[@]}"; do
  log="$work/log.budget.${setting/\//_}"
  echo "budget $setting: FASTCUDA_MEMORY_BUDGET=$(cat "$log.budget")"
done
echo "peak memory of the first FastCuda build / threads0: $(ratio "$(median "$work/log.first" 3)" "$(median "$work/log.threads0" 3)")"

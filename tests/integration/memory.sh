#!/usr/bin/env bash
# Memory-aware scheduling against real nvcc: every step's program waits in
# the graph's memory ledger until the running ones leave room in
# FASTCUDA_MEMORY_BUDGET for the peak it is expected to reach. A device
# launcher of the test's own logs when each cicc, ptxas and fatbinary runs
# (and holds each for 0.4 s, so that programs allowed together do overlap).
#   first build    no history, a 1 GiB budget: the first cicc program (1 GiB
#                  guessed) runs alone; the two waiting behind it expect
#                  what it taught once it ended, and run together; every
#                  step's peak is recorded, and the ledger has learned each kind's
#   learned        the next generation plans with those peaks (planned-
#                  limits.json; each step's own in the TU's step-peaks where
#                  the budget could bind), and with them the same budget lets
#                  the cicc programs overlap; a new budget reruns no step
#   roomy          a 64 GiB budget: cicc programs overlap (the check can
#                  fail), and no step goes through the ledger
#   tiny           a 1 KiB budget: no two programs run at once, each alone
#   ended          entries that killed steps left in the ledger (a process
#                  that is gone, a pid another process has now) hold nothing back
#   remembered     a fresh graph whose remembered-memory.tsv holds those peaks
#                  plans with them as one with its own history does
#   fell           each program holds 400 MiB first and little after (the
#                  shape of cicc's run on a heavy TU): the ledger learns that
#                  its kind falls from its high, and where two programs at
#                  their peaks do not fit the budget, one that has fallen
#                  holds less and the next starts beside it
#
# usage: memory.sh FASTCUDA_BINARY [NVCC]
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/checks.sh" memory "$@"
cd "$scratch"
printf '__global__ void k(float *x) { x[threadIdx.x] = sinf(x[threadIdx.x]); }\n' > tu.cu
args=(-c tu.cu -o tu.o -gencode arch=compute_80,code=sm_80 -gencode arch=compute_86,code=sm_86
      -gencode arch=compute_90,code=sm_90)
cat > runs.sh <<'SCRIPT'
#!/usr/bin/env bash
# Logs the program's run: "START END NAME" (seconds), held 0.4 s longer;
# where a file `balloon` is beside it, first 400 MiB for 0.6 s (the
# program's high) and the 0.4 s after the program (a tail that holds less).
here=$(dirname "$0")
log=$here/runs.log start=$(date +%s.%N)
if [ -f "$here/balloon" ]; then
  python3 -c 'import time; held = b"x" * (400 << 20); time.sleep(0.6)'
else
  sleep 0.4
fi
"$@"
status=$?
[ ! -f "$here/balloon" ] || sleep 0.4
echo "$start $(date +%s.%N) $(basename "$1")" >> "$log"
exit $status
SCRIPT
chmod +x runs.sh
export FASTCUDA_DEVICE_LAUNCHER=$scratch/runs.sh

build() {  # BUDGET: a clean build of the graph with that budget
  FASTCUDA_MEMORY_BUDGET=$1 "$FASTCUDA" gen --out graph -j 4 -- "$NVCC" "${args[@]}" &&
    ninja -C graph -t clean > /dev/null && : > runs.log && ninja -C graph -j 4 > /dev/null
}
most_at_once() {  # PROGRAM-RE: the most programs matching it that ran at once
  awk -v re="$1" '$3 ~ re { print $1, 1; print $2, -1 }' runs.log | sort -k1,1n -k2,2n |
    awk '{ n += $2; if (n > most) most = n } END { print most + 0 }'
}
runs() { awk -v re="$1" '$3 ~ re' runs.log | wc -l; }

build 1G
first_alone_then_learned() {  # the first cicc ended before the others started; those two overlapped
  local first_end
  first_end=$(awk '$3 == "cicc"' runs.log | sort -k1,1n | head -1 | cut -d' ' -f2)
  [ "$(runs '^cicc$')" = 3 ] && [ "$(most_at_once '^cicc$')" = 2 ] &&
    awk -v end="$first_end" '$3 == "cicc" && $2 != end && $1 < end { exit 1 }' runs.log
}
check "first build, no history, a 1 GiB budget: the first cicc ran alone, the two after it together, as it taught" \
  first_alone_then_learned
recorded() { [ "$(wc -l < graph/step-memory.tsv)" -ge 10 ] && awk -F'\t' '$2 <= 0 { exit 1 }' graph/step-memory.tsv; }
check "every step's peak memory is recorded" recorded
check "the ledger learned the peak of each kind of step, and holds no step" \
  bash -c 'grep -q "^peak CICC [1-9][0-9]* [1-9]" graph/step-locks/memory-ledger && grep -q "^peak PTXAS [1-9][0-9]* [1-9]" graph/step-locks/memory-ledger &&
           ! grep -q "^run\|^wait" graph/step-locks/memory-ledger'

rm graph/step-locks/memory-ledger  # what the generation plans with, not what the ledger learned
build 1G
check "learned: the next generation plans with the recorded peaks by kind" grep -q '"CICC":[1-9]' graph/planned-limits.json
own_peaks_where_binding() {  # -j 4 steps at the largest guess (2 GiB) do not fit in 200 MiB; in 64 GiB they do
  FASTCUDA_MEMORY_BUDGET=200M "$FASTCUDA" gen --out graph -j 4 -- "$NVCC" "${args[@]}" &&
    grep -qP '\t[1-9]' graph/tu/*/step-peaks &&
    FASTCUDA_MEMORY_BUDGET=64G "$FASTCUDA" gen --out graph -j 4 -- "$NVCC" "${args[@]}" && ! ls graph/tu/*/step-peaks 2> /dev/null
}
check "learned: each step's own peak is written where the budget could bind, and only there" own_peaks_where_binding
check "learned: with them the same budget lets cicc programs run together" test "$(most_at_once '^cicc$')" -ge 2
FASTCUDA_MEMORY_BUDGET=2G "$FASTCUDA" gen --out graph -j 4 -- "$NVCC" "${args[@]}"
check "a new budget reruns no step" bash -c 'ninja -C graph -n | grep -q "no work to do"'

cp graph/step-locks/memory-ledger ledger.before
build 64G
check "roomy: a 64 GiB budget lets the cicc programs overlap" test "$(most_at_once '^cicc$')" -ge 2
check "roomy: where the budget cannot bind, no step goes through the ledger" cmp -s ledger.before graph/step-locks/memory-ledger
build 1K
check "tiny: with a 1 KiB budget each program ran alone" test "$(most_at_once .)" = 1 -a "$(runs .)" -ge 7

ended() {
  # pid 1 (init, which runs) with a start it never had: a process before a restart
  printf 'next 5\nrun 999999 1 4 1073741824 0\nrun 1 1 5 1073741824 0\n' > graph/step-locks/memory-ledger
  local start=$SECONDS
  build 2G && [ $((SECONDS - start)) -lt 60 ] && [ "$(runs '^cicc$')" = 3 ]
}
check "ended: entries of killed steps (a process gone, a pid reused) hold nothing back" ended

remembered_peaks_plan() {  # a fresh graph whose remembered-memory.tsv holds those peaks (as a first build
  # ranked by remembered step times writes it) plans with them as one with its own history
  mkdir -p graph2 && sed "s|$scratch/graph/|$scratch/graph2/|" graph/step-memory.tsv > graph2/remembered-memory.tsv &&
    FASTCUDA_MEMORY_BUDGET=1G "$FASTCUDA" gen --out graph2 -j 4 -- "$NVCC" "${args[@]}" &&
    grep -q "$scratch/graph2/" graph2/remembered-memory.tsv && grep -q '"CICC":[1-9]' graph2/planned-limits.json
}
check "remembered: a fresh graph with remembered peaks plans as one with its own history" remembered_peaks_plan

learned_falls() {  # "peak CICC ... FELL MOST_AFTER_FALL": three fell or more, to less than half their high
  awk '$1 == "peak" && $2 == "CICC" { found = 1; if ($11 < 3 || $12 >= 500) exit 1 } END { exit !found }' \
    graph/step-locks/memory-ledger
}
# The ledger's own rule, whatever Ninja starts the steps: the first pass only.
if ! same_with_any_tools "fell: steps that fell from their high hold less"; then
  touch balloon
  rm graph/step-locks/memory-ledger
  build 800M
  check "fell: the ledger learned that cicc falls from its high" learned_falls
  build 800M  # two ciccs at their own peaks (400 MiB and more each) do not fit in 800 MiB
  check "fell: a cicc that fell holds less, and the next starts beside it" test "$(most_at_once '^cicc$')" -ge 2
fi

finish

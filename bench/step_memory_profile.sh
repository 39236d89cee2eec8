#!/usr/bin/env bash
# What each sub-step of one nvcc call holds over its run: compiles one TU of
# bench/make_corpus.sh (MIX, default heavy) for ARCH with plain nvcc and
# samples the resident memory of every process of the call every 50 ms
# (`ps` over the call's session). Prints a line per step run: its time, its
# peak, its mean, mean ÷ peak, and what it held at 10, 25, 50, 75 and 90 %
# of its run (MiB). A memory ledger that holds each step's peak for its
# whole run (FastCuda's) pays peak x time; mean ÷ peak says how much of
# that the step actually held.
# Usage: bench/step_memory_profile.sh [ARCH (80)] [MIX (heavy)]
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
arch=${1:-80} mix=${2:-heavy}
"$bench_dir/make_corpus.sh" "$work/corpus" 1 "$arch-real" "$mix" > /dev/null
cd "$work"
setsid nvcc -arch="sm_$arch" -Icorpus/include -c corpus/src/tu1.cu -o tu1.o &
nvcc_pid=$!
start=$(date +%s%N)
while kill -0 "$nvcc_pid" 2> /dev/null; do
  { ps -s "$nvcc_pid" -o comm=,rss= || true; } | awk -v t="$(( ($(date +%s%N) - start) / 1000000 ))" '{ print t / 1000, $1, $2 }'
  sleep 0.05
done > samples.txt
wait "$nvcc_pid" || { echo "step_memory_profile: nvcc failed" >&2; exit 1; }
machine_info
echo "nvcc -arch=sm_$arch, one $mix TU of bench/make_corpus.sh, each process's RSS every 50 ms"
python3 - samples.txt <<'PY'
import collections, sys
runs = collections.defaultdict(list)  # program: samples of each of its runs
for line in open(sys.argv[1]):
    seconds, program, kib = line.split()
    if program in ("nvcc", "sh", "gcc", "ps", "awk"):  # the drivers, not steps
        continue
    samples = runs[program]
    if not samples or float(seconds) - samples[-1][-1][0] > 0.3:
        samples.append([])
    samples[-1].append((float(seconds), int(kib) / 1024))
print("step       time s  peak MiB  mean MiB  mean/peak  MiB at 10/25/50/75/90 % of its run")
for program, samples_of_runs in runs.items():
    for run in samples_of_runs:
        mib = [m for _, m in run]
        at = [mib[min(len(mib) - 1, int(len(mib) * f))] for f in (0.1, 0.25, 0.5, 0.75, 0.9)]
        print(f"{program:10s} {run[-1][0] - run[0][0]:6.2f} {max(mib):9.0f} {sum(mib) / len(mib):9.0f} "
              f"{sum(mib) / len(mib) / max(mib):10.2f}  " + " ".join(f"{m:.0f}" for m in at))
PY

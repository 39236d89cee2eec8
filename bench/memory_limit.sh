#!/usr/bin/env bash
# Never out of memory: memory-heavy TUs (make_corpus.sh MIX, default heavy:
# CUB device-wide sort, reduce and scan, and unrolled kernels) for ARCHS,
# CMake + Ninja at -j $jobs, clean first builds (no step history):
#   free     no limit: plain nvcc, --threads 0, FastCuda (the module) with its
#            defaults, and FastCuda with FASTCUDA_MEMORY_BUDGET = plain's peak,
#            a first build and a clean rebuild that knows the steps' peaks;
#            wall, CPU and peak memory (MemTotal - MemAvailable, lib.sh); and
#            the floor of a schedule that holds each step's peak for its
#            whole run (the rebuild's steps' peak x CPU time / budget)
#   limited  inside a memory cgroup of LIMIT_MIB (default 3/5 of plain's peak
#            from `free`; no swap): plain nvcc and --threads 0 at -j $jobs,
#            killed or not, and FastCuda with its defaults (its budget from
#            the cgroup's limit): wall, the cgroup's peak (page cache
#            included), out-of-memory kills, steps run again alone
#   fit      in that cgroup, plain nvcc at -j N for N in PLAIN_JOBS (default
#            "12 8 6 4 3 2 1"), largest first, until one finishes: the
#            fastest plain build that fits
#   all      the three in turn
# FREE_VARIANTS and LIMITED_VARIANTS pick among the builds of a part
# (default "plain threads0 module" and "plain threads0 fastcuda");
# FREE_BUDGET=0 leaves out `free`'s builds within plain's peak, and where
# FREE_VARIANTS leaves plain out they take its peak from the results.
# LEDGER_TRACE=FILE: every 0.25 s of those builds, a line of the time, the
# steps running and what they hold (MiB), the steps waiting and what they
# expect, and the machine's memory in use (MemTotal - MemAvailable).
# Each part fits one 10-minute command on 16 cores at 16 TUs x 3 archs;
# results accumulate in $FASTCUDA_BUILD_DIR/memory_limit.results ("KEY
# VALUE" lines; `rm` it to start over), from which each part prints the
# goals it can: FastCuda under the limit <= 0.9 x the fastest plain that
# fits; with plain's peak as budget, within plain's peak and <= 0.9 x
# --threads 0. The cgroup (v1 or v2, which it prints) is removed on exit.
# Usage: bench/memory_limit.sh free|limited|fit|all N ARCHS [MIX]
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
source "$FASTCUDA_SOURCE_DIR/tests/integration/cgroup.sh"
part="$1"; count="$2"; archs="$3"; mix="${4:-heavy}"
results="$FASTCUDA_BUILD_DIR/memory_limit.results"
touch "$results"
"$bench_dir/make_corpus.sh" "$work/corpus" "$count" "$archs" "$mix"
unset FASTCUDA_MEMORY_BUDGET

result() { awk -v k="$1" '$1 == k { v = $2 } END { print v }' "$results"; }  # KEY: its latest value
remember() { echo "$1 $2" >> "$results"; }
echo "$(machine_info)"
echo "corpus: $count TUs ($mix), CUDA_ARCHITECTURES=$archs, -j $jobs"

run_free() {
  local variant log
  for variant in ${FREE_VARIANTS:-plain threads0 module}; do
    configure_variant "$variant"
    log="$work/free.$variant"
    timed "$log" build_variant "$variant"
    remember "free.$variant.wall" "$(median "$log" 1)"
    remember "free.$variant.peak_mib" "$(median "$log" 3)"
    echo "free $variant: $(tail -n 1 "$log") (wall_s cpu_s peak_MiB)"  # kept if the command is cut short
  done
  [ "${FREE_BUDGET:-1}" != 0 ] || return 0
  local budget="$(result free.plain.peak_mib)M" tracer=""
  configure_variant module
  if [ -n "${LEDGER_TRACE:-}" ]; then trace_ledger "$work/module/fastcuda/step-locks/memory-ledger" > "$LEDGER_TRACE" & tracer=$!; fi
  FASTCUDA_MEMORY_BUDGET=$budget timed "$work/free.budget" build_variant module
  echo "free budget: $(tail -n 1 "$work/free.budget") (wall_s cpu_s peak_MiB)"
  # A clean rebuild: the graph's memory log has every step's peak now.
  run_quietly cmake --build "$work/module" --target clean
  run_quietly ninja -C "$work/module/fastcuda" -t clean
  FASTCUDA_MEMORY_BUDGET=$budget timed "$work/free.budget_known" build_variant module
  if [ -n "$tracer" ]; then kill "$tracer"; summarize_ledger_trace "$LEDGER_TRACE"; fi
  for variant in budget budget_known; do
    remember "free.$variant.wall" "$(median "$work/free.$variant" 1)"
    remember "free.$variant.peak_mib" "$(median "$work/free.$variant" 3)"
  done
  # The floor of a schedule that holds each step's peak for the step's
  # whole run (as FastCuda did before its steps held less once fallen from
  # their high), which lasts at least its CPU time: the steps' peak x CPU
  # time over the budget, from the rebuild's lines of the graph's memory
  # log (output, peak KiB, CPU ms). Not the step table's durations: under a
  # binding budget they include the wait for admission, which holds no
  # memory.
  remember free.budget_floor "$(awk -F '\t' -v budget="${budget%M}" '$3 > 0 { peak[$1] = $2; cpu[$1] = $3 }
      END { for (o in cpu) mib_s += peak[o] / 1024 * cpu[o] / 1000; printf "%.1f", mib_s / budget }' \
    "$work/module/fastcuda/step-memory.tsv")"
  summary_header "no limit" threads0
  local threads0
  threads0=$(result free.threads0.wall)
  for variant in plain threads0 module budget budget_known; do
    [ -f "$work/free.$variant" ] || continue  # left out by FREE_VARIANTS
    summary_row "$variant" "$work/free.$variant" "$threads0"
  done
  echo "budget, budget_known: FastCuda with FASTCUDA_MEMORY_BUDGET=$budget (plain's peak); budget_known a clean rebuild"
  echo "floor of holding peaks within that budget (the steps' peak x CPU time / budget): $(result free.budget_floor) s;" \
    "0.9 x --threads 0: $(awk -v t="$threads0" 'BEGIN { printf "%.1f", 0.9 * t }') s"
  # On a machine the builds keep busy, a build ends no sooner than its CPU
  # time over the cores: where that is above a goal, only a build that
  # takes less CPU time can meet it.
  for variant in module budget_known; do
    [ -f "$work/free.$variant" ] || continue
    awk -v v="$variant" -v j="$jobs" -v t="$threads0" '{ cpu = $2 } END {
        printf "%s: its CPU over %d cores %.1f s, %.3f x --threads 0\n", v, j, cpu / j, cpu / j / t }' "$work/free.$variant"
  done
}

trace_ledger() {  # LEDGER: LEDGER_TRACE's lines, until killed or the bench ends
  while kill -0 $$ 2> /dev/null && sleep 0.25; do
    [ -f "$1" ] || continue
    awk -v t="$(date +%s.%N)" -v used="$(used_kib)" '/^run/ { n++; held += $5 } /^wait/ { w++; expected += $5 }
      END { printf "%.2f %d %.0f %d %.0f %.0f\n", t, n, held / 1024, w, expected / 1024, used / 1024 }' "$1"
  done
}

summarize_ledger_trace() {  # FILE: the means over the samples with a step running
  awk '$2 > 0 { n++; running += $2; held += $3; waiting += $4; used += $6 }
    END { if (n) printf "ledger trace (%d samples with steps running): %.1f steps running, holding %.0f MiB;" \
            " %.1f waiting; the machine using %.0f MiB (its baseline included)\n", n, running / n, held / n, waiting / n, used / n }' "$1"
}

make_limited_cgroup() {
  local limit_mib=${LIMIT_MIB:-}
  if [ -z "$limit_mib" ]; then
    local plain_peak
    plain_peak=$(result free.plain.peak_mib)
    [ -n "$plain_peak" ] || { echo "bench: no plain peak measured: run part free first, or set LIMIT_MIB" >&2; return 1; }
    limit_mib=$(( plain_peak * 3 / 5 ))
  fi
  cgroup_make "fastcuda-bench-$$" $(( limit_mib << 20 )) || { echo "bench: $CGROUP_WHY" >&2; return 1; }
  echo "cgroup v$CGROUP_VERSION: $CGROUP_DIR, memory limit $limit_mib MiB, no swap"
  remember limit_mib "$limit_mib"
}

limited_build() {  # NAME VARIANT [JOBS]: builds VARIANT's fresh configuration in the cgroup; one
  # line: finished or failed, wall, the cgroup's peak, out-of-memory kills, steps run again alone.
  # True where it finished.
  local name=$1 variant=$2 n=${3:-$jobs} kills start end outcome=finished
  configure_variant "$variant"
  kills=$(cgroup_oom_kills)
  cgroup_reset_peak
  start=$(date +%s%N)
  cgroup_run cmake --build "$work/$variant" -j "$n" > "$work/limited.$name.log" 2>&1 || outcome=failed
  end=$(date +%s%N)
  local wall peak alone
  wall=$(awk -v ns=$(( end - start )) 'BEGIN { printf "%.3f", ns / 1e9 }')
  peak=$(( $(cgroup_peak_bytes || echo 0) >> 20 ))
  alone=$(grep -c 'ran out of memory beside other steps' "$work/limited.$name.log" || true)
  printf '%-20s %-9s %9s %9s %9s %9s\n' "$name" "$outcome" "$wall" "$peak" "$(( $(cgroup_oom_kills) - kills ))" "$alone"
  remember "limited.$name.outcome" "$outcome"
  [ "$outcome" = failed ] || remember "limited.$name.wall" "$wall"
  [ "$outcome" = finished ]
}

limited_header() { printf '%-20s %-9s %9s %9s %9s %9s\n' "limit $1 MiB" outcome wall_s peak_MiB oom_kills alone; }

run_limited() {
  make_limited_cgroup
  limited_header "$(result limit_mib)"
  local variant
  for variant in ${LIMITED_VARIANTS:-plain threads0 fastcuda}; do
    case $variant in
      fastcuda) limited_build fastcuda module || true ;;
      *) limited_build "${variant}_j$jobs" "$variant" || true ;;
    esac
  done
  cgroup_remove
}

run_fit() {
  make_limited_cgroup
  limited_header "$(result limit_mib)"
  local n
  for n in ${PLAIN_JOBS:-12 8 6 4 3 2 1}; do
    if limited_build "plain_j$n" plain "$n"; then
      remember limited.fit_jobs "$n"
      remember limited.fit_wall "$(result "limited.plain_j$n.wall")"
      break
    fi
  done
  cgroup_remove
}

case "$part" in
  free) run_free ;;
  limited) run_limited ;;
  fit) run_fit ;;
  all) run_free; run_limited; run_fit ;;
  *) echo "usage: bench/memory_limit.sh free|limited|fit|all N ARCHS [MIX]" >&2; exit 2 ;;
esac

echo "results so far ($results):"
fast_limited=$(result limited.fastcuda.wall)
fit_wall=$(result limited.fit_wall)
[ -z "$fit_wall" ] || echo "fastest plain that fits the limit: -j $(result limited.fit_jobs), $fit_wall s"
echo "under the limit: plain -j $jobs $(result "limited.plain_j$jobs.outcome"), threads0 -j $jobs" \
  "$(result "limited.threads0_j$jobs.outcome"), fastcuda $(result limited.fastcuda.outcome)"
goal "FastCuda under the limit / fastest plain -j N that fits" "$(ratio "$fast_limited" "$fit_wall")" 0.90
goal "FastCuda with plain's peak as budget, first build: peak / plain's peak" \
  "$(ratio "$(result free.budget.peak_mib)" "$(result free.plain.peak_mib)")" 1.00
goal "FastCuda with plain's peak as budget, first build: wall / --threads 0" \
  "$(ratio "$(result free.budget.wall)" "$(result free.threads0.wall)")" 0.90
goal "the same, rebuild that knows the peaks: peak / plain's peak" \
  "$(ratio "$(result free.budget_known.peak_mib)" "$(result free.plain.peak_mib)")" 1.00
goal "the same, rebuild that knows the peaks: wall / --threads 0" \
  "$(ratio "$(result free.budget_known.wall)" "$(result free.threads0.wall)")" 0.90

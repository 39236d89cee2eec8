#!/usr/bin/env bash
# What the same work costs in CPU time as the machine gets busier: K copies of one nvcc compile of one heavy TU run at once, for each
# K; prints the wall time and the CPU time per copy, and that CPU time
# against the first K's. A per-copy CPU time that grows with K is what any build that
# keeps more cores busy pays (shared physical cores, lower clocks), not work
# it adds. With BENCH_EVENTS=1 also each copy's instructions and cycles
# (bench/lib.sh), mean a copy and against the first K's: if the work stays
# the same, the instructions do.
# Usage: bench/cpu_under_load.sh ARCHS "K..."   e.g. bench/cpu_under_load.sh 80-real "1 6 16"
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
archs="$1"; loads="${2:-1 $(( $(nproc) / 2 )) $(nproc)}"
"$bench_dir/make_corpus.sh" "$work/corpus" 1 "$archs" heavy 1
machine_info
echo "threads per core: $(lscpu 2>/dev/null | sed -n 's/^Thread(s) per core:[[:space:]]*//p')"
codes=()
for arch in ${archs//;/ }; do codes+=("--generate-code=arch=compute_${arch%-real},code=sm_${arch%-real}"); done
compile() {  # INDEX
  nvcc -c -std=c++17 -O3 "${codes[@]}" -I "$work/corpus/include" "$work/corpus"/src/*.cu -o "$work/copy$1.o"
}
cpu_seconds() {  # the children's user + system time so far, from `times` (in this shell)
  times > "$work/times"
  awk 'function s(t) { split(t, a, /[ms]/); return a[1] * 60 + a[2] } NR == 2 { printf "%.3f\n", s($1) + s($2) }' "$work/times"
}
echo "one TU (heavy), CUDA_ARCHITECTURES=$archs"
first_load=${loads%% *}
printf '%-4s %8s %14s %10s' K wall_s "CPU s a copy" "÷ K=$first_load"
[ -z "$event_counter" ] || printf ' %18s %10s %14s %10s' "instructions a copy" "÷ K=$first_load" "cycles a copy" "÷ K=$first_load"
echo
first=""; first_events=""
for load in $loads; do
  cpu_seconds > "$work/before"
  start=$(date +%s%N)
  pids=()
  rm -f "$work"/copy*.events
  for i in $(seq "$load"); do (count_start && compile "$i" && count_stop > "$work/copy$i.events") & pids+=($!); done
  for pid in "${pids[@]}"; do wait "$pid" || { echo "a copy of the compile failed" >&2; exit 1; }; done
  wall=$(( ($(date +%s%N) - start) / 1000000 ))
  cpu_seconds > "$work/after"
  per_copy=$(awk -v a="$(cat "$work/before")" -v b="$(cat "$work/after")" -v k="$load" 'BEGIN { printf "%.3f", (b - a) / k }')
  [ -n "$first" ] || first=$per_copy
  printf '%-4s %8.2f %14s %10s' "$load" "$(awk -v w="$wall" 'BEGIN { print w / 1000 }')" "$per_copy" "$(ratio "$per_copy" "$first")"
  if [ -n "$event_counter" ]; then
    events=$(cat "$work"/copy*.events | awk '$2 == "-" { none = 1 } { i += $2; c += $3 } END { if (none) print "- -"; else printf "%.0f %.0f", i / NR, c / NR }')
    [ -n "$first_events" ] || first_events=$events
    read -r instructions cycles <<< "$events"; read -r first_instructions first_cycles <<< "$first_events"
    printf ' %18s %10s %14s %10s' "$instructions" "$(ratio "$instructions" "$first_instructions")" \
      "$cycles" "$(ratio "$cycles" "$first_cycles")"
  fi
  echo
done

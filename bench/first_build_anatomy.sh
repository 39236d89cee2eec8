#!/usr/bin/env bash
# Where a module build's wall time goes beyond the schedule's lower bound:
# each round builds the corpus through the module in a
# fresh build directory (a first build; VARIANT=module_warm: a clean rebuild
# with step times) and splits its wall time, in ms, into
#   before   CMake's Ninja's start until the object whose launcher runs the graph
#   gen      that launcher until the graph's first step: generation, dryruns
#   phase    the first phase (first builds only), then gap: estimates and the
#            manifest regenerated, until the build's own Ninja starts
#   steps    the graph's Ninja run, against the bound (every step's time / jobs,
#            or the longest chain, whichever is longer)
#   after    the rest of that launcher, CMake's edges after it (the archive)
#            and cmake --build's own start before its Ninja (not in CMake's log)
# KEEP_TABLES=DIR: copies each round's step table and graph log there.
# Usage: bench/first_build_anatomy.sh N ARCHS [ROUNDS] [MIX] [SEED]
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
count="$1"; archs="$2"; rounds="${3:-1}"; mix="${4:-mixed}"; seed="${5:-1}"
variant="${VARIANT:-module}"
"$bench_dir/make_corpus.sh" "$work/corpus" "$count" "$archs" "$mix" "$seed"
machine_info
echo "corpus: $count TUs ($mix, seed $seed), CUDA_ARCHITECTURES=$archs, $jobs jobs, $variant"
printf '%-5s %8s %7s %6s %6s %5s %7s %6s %7s %8s %8s\n' \
  round wall_ms before gen phase gap steps after bound_ms wall/bnd steps/bnd
for round in $(seq "$rounds"); do
  configure_variant "$variant"
  warm_up_variant "$variant"
  cmake_log_lines=0
  [ ! -f "$work/$variant/.ninja_log" ] || cmake_log_lines=$(wc -l < "$work/$variant/.ninja_log")
  start=$(date +%s%N)
  run_quietly build_variant "$variant"
  wall=$(( ($(date +%s%N) - start) / 1000000 ))
  graph=$(graph_dir_of "$variant")
  # The CUDA object edge that ran the graph is the longest one of this build
  # in CMake's log.
  read -r graph_start graph_end < <(tail -n +"$((cmake_log_lines + 1))" "$work/$variant/.ninja_log" |
    awk -F'\t' '!/^#/ && $4 ~ /\.cu\.o$/ && $2 - $1 > longest { longest = $2 - $1; span = $1 " " $2 } END { print span }')
  [ -n "$graph_start" ] || { echo "no CUDA object in CMake's log of $work/$variant" >&2; exit 1; }
  phase_end=0 build_start=0
  if [ "$variant" = module ] && [ -f "$graph/first-phase" ]; then
    read -r _ _ build_start < "$graph/first-phase"
    phase_end=$("$FASTCUDA_BINARY" table "$graph" | awk -F, -v start="$build_start" '
      NR > 1 && $6 < start && $7 > end { end = $7 } END { print end + 0 }')
  fi
  span=$(awk -v s="$(report_seconds "$graph" wall)" 'BEGIN { printf "%d", s * 1000 }')
  bound=$(awk -v s="$(report_seconds "$graph" bound)" 'BEGIN { printf "%d", s * 1000 }')
  # The graph's launcher outlives its Ninja by what it does after (assumed
  # small): its steps start `gen` after the launcher did.
  gen=$((graph_end - graph_start - span))
  steps=$((span - build_start))
  awk -v r="$round" -v w="$wall" -v b="$graph_start" -v g="$gen" -v p="$phase_end" \
      -v gap="$((build_start - phase_end))" -v s="$steps" -v a="$((wall - graph_end))" -v bound="$bound" 'BEGIN {
    printf "%-5s %8d %7d %6d %6d %5d %7d %6d %7d %8.3f %8.3f\n", r, w, b, g, p, gap, s, a, bound, w / bound, s / bound }'
  if [ -n "${KEEP_TABLES:-}" ]; then
    mkdir -p "$KEEP_TABLES"
    "$FASTCUDA_BINARY" table "$graph" > "$KEEP_TABLES/$variant-$count-round$round.csv"
    cp "$graph/.ninja_log" "$KEEP_TABLES/$variant-$count-round$round.ninja_log"
    [ ! -f "$graph/first-phase" ] || cp "$graph/first-phase" "$KEEP_TABLES/$variant-$count-round$round.first-phase"
  fi
done

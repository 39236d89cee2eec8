#!/usr/bin/env bash
# Incremental builds of one corpus, side by side as the
# variants of bench/lib.sh (VARIANTS="NAME[:REPEATS] ...", default
# "plain:1 threads0 module"), each built clean once first:
#   noop    `cmake --build` with nothing to do (5 runs each)
#   host    after a host-only edit of the first device-heavy TU (the value its
#           host function returns; its device code stays the same)
#   header  after `touch include/corpus.h`, which every fourth TU includes
#   again   the build after that one, which should have nothing to do
# Prints medians of wall time, CPU time and peak memory, and the ratio to the
# best of plain and threads0 per scenario.
# Usage: bench/compare_incremental.sh N ARCHS [REPEATS] [MIX] [SEED]
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
count="$1"; archs="$2"; repeats="${3:-3}"; mix="${4:-mixed}"; seed="${5:-1}"
"$bench_dir/make_corpus.sh" "$work/corpus" "$count" "$archs" "$mix" "$seed"
parse_variants "${VARIANTS:-plain:1 threads0 module}" "$repeats"
edited=$(grep -l 'host_revision_' "$work/corpus/src/"*.cu || true)
edited=${edited%%$'\n'*}  # one TU is edited, the same in every variant
[ -n "$edited" ] || { echo "no device-heavy TU in the corpus: use more TUs" >&2; exit 1; }

for variant in "${variants[@]}"; do
  configure_variant "$variant"
  timed "$work/clean.$variant" build_variant "$variant"
  for _ in 1 2 3 4 5; do timed "$work/noop.$variant" build_variant "$variant"; done
done
change() {  # SCENARIO ROUND: the change its rebuild follows
  case "$1" in
    host) sed -i "s/return [0-9]*; }/return $2; }/" "$edited" ;;
    header) touch "$work/corpus/include/corpus.h" ;;
  esac
}
for round in $(seq "$rounds"); do
  for scenario in host header again; do
    change "$scenario" "$round"
    for variant in "${variants[@]}"; do
      [ "$round" -gt "${repeats_of[$variant]}" ] || timed "$work/$scenario.$variant" build_variant "$variant"
    done
  done
done

echo "corpus: $count TUs ($mix, seed $seed), CUDA_ARCHITECTURES=$archs, $jobs jobs, medians of: ${VARIANTS:-plain:1 threads0 module} (noop: 5 runs)"
echo "host: edited $(basename "$edited"); header: included by $(grep -l corpus.h "$work/corpus/src/"*.cu | xargs -n1 basename | tr '\n' ' ')"
echo "(vs_peer: wall / the best of plain and threads0 in the same scenario)"
for scenario in clean noop host header again; do
  summary_header "$scenario" peer
  best=$(best_wall "$work/$scenario.plain" "$work/$scenario.threads0")
  for variant in "${variants[@]}"; do summary_row "$variant" "$work/$scenario.$variant" "$best"; done
done

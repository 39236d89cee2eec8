#!/usr/bin/env bash
# The edit-compile loop on one heavy TU: a TU with CUB instances
# and three unrolled kernels (make_corpus.sh heavy; HEAVY_UNROLL, default 64)
# and a small kernel whose constant each round changes (a device edit: every
# sub-step reruns), built for ARCHS and rebuilt, in turn, by (VARIANTS, as in
# compare_builds.sh; default "nvcc:1 threads0 fastcuda split_auto split_8:1 own_id own_auto"):
#   nvcc        plain nvcc                threads0    nvcc --threads 0
#   fastcuda    FastCuda's graph of the call (`fastcuda gen`, then ninja -j nproc)
#   split_auto  the same generated with FASTCUDA_SPLIT_COMPILE=auto
#   split_N     ... FASTCUDA_SPLIT_COMPILE=N (split_8: 8 threads)
#   own_id      ... FASTCUDA_MODULE_ID=own (cicc need not wait for cudafe++)
#   own_auto    ... both: FASTCUDA_MODULE_ID=own FASTCUDA_SPLIT_COMPILE=auto
#   early       ... FASTCUDA_EARLY_HOST=on (the host compile does not wait for the device code)
#   early_all   ... all three: own module id, auto split, early host
#   early_N     ... the same with FASTCUDA_SPLIT_COMPILE=N
# Each graph is built once before the loop; it is regenerated (untimed, with
# the last build's history) before each rebuild. Prints medians, the ratio to
# threads0, each FastCuda rebuild's critical path (its longest chain of
# sub-steps, from its .ninja_log) and the project's targets for both.
# Usage: bench/edit_loop.sh [ARCHS] [REPEATS]   (ARCHS: comma-separated, default 75,80,86,89,90)
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
archs="${1:-75,80,86,89,90}"; repeats="${2:-3}"
cd "$work"
"$bench_dir/make_corpus.sh" corpus 1 80-real heavy
{ cat corpus/src/tu1.cu; echo '__global__ void edit_marker(float *x) { x[0] = 0.0f; }'; } > tu.cu
gencode=()
for sm in ${archs//,/ }; do gencode+=(-gencode "arch=compute_$sm,code=sm_$sm"); done
parse_variants "${VARIANTS:-nvcc:1 threads0 fastcuda split_auto split_8:1 own_id own_auto}" "$repeats"

variant_env() {  # NAME: the environment a FastCuda variant generates and builds with
  case "$1" in
    split_auto) echo FASTCUDA_SPLIT_COMPILE=auto ;;
    split_[0-9]*) echo "FASTCUDA_SPLIT_COMPILE=${1#split_}" ;;
    own_id) echo FASTCUDA_MODULE_ID=own ;;
    own_auto) echo FASTCUDA_MODULE_ID=own FASTCUDA_SPLIT_COMPILE=auto ;;
    early) echo FASTCUDA_EARLY_HOST=on ;;
    early_all) echo FASTCUDA_MODULE_ID=own FASTCUDA_SPLIT_COMPILE=auto FASTCUDA_EARLY_HOST=on ;;
    early_[0-9]*) echo FASTCUDA_MODULE_ID=own "FASTCUDA_SPLIT_COMPILE=${1#early_}" FASTCUDA_EARLY_HOST=on ;;
  esac
}
generate() {  # NAME
  env $(variant_env "$1") "$FASTCUDA_BINARY" gen --out "g.$1" -j "$jobs" -- nvcc -c tu.cu -o "$1.o" "${gencode[@]}"
}
compile() {  # NAME: builds tu.cu the variant's way
  case "$1" in
    nvcc) nvcc -c tu.cu -o nvcc.o "${gencode[@]}" ;;
    threads0) nvcc --threads 0 -c tu.cu -o threads0.o "${gencode[@]}" ;;
    *) env $(variant_env "$1") ninja -C "g.$1" -j "$jobs" ;;
  esac
}
is_fastcuda() { [ "$1" != nvcc ] && [ "$1" != threads0 ]; }

# The first builds only give the graphs their objects and history: run them side by side.
pids=()
for variant in "${variants[@]}"; do
  if is_fastcuda "$variant"; then (generate "$variant" && compile "$variant") > "warm.$variant" 2>&1 & pids+=($!); fi
done
for pid in "${pids[@]}"; do wait "$pid" || { cat warm.* >&2; exit 1; }; done

for round in $(seq "$rounds"); do
  sed -i "s/x\[0\] = [0-9]*\.0f/x[0] = $round.0f/" tu.cu
  for variant in "${variants[@]}"; do
    [ "$round" -le "${repeats_of[$variant]}" ] || continue
    if is_fastcuda "$variant"; then run_quietly generate "$variant"; fi
    timed "$variant.times" compile "$variant"
    if is_fastcuda "$variant"; then report_seconds "g.$variant" chain >> "$variant.chain" || true; fi
  done
done

echo "edit loop: one heavy TU (CUB instances, 3 kernels unrolled ${HEAVY_UNROLL:-64}), sm $archs, $jobs jobs;" \
     "a device edit, then a rebuild; medians of: ${VARIANTS:-nvcc:1 split_8:1, others $repeats}"
threads0=$(best_wall threads0.times)
summary_header variant threads0
for variant in "${variants[@]}"; do summary_row "$variant" "$variant.times" "$threads0"; done
for variant in "${variants[@]}"; do
  if [ -s "$variant.chain" ]; then echo "$variant: critical path of the rebuild $(median "$variant.chain") s"; fi
done
for variant in "${variants[@]}"; do
  [[ "$variant" =~ ^(split_|own_auto|early_) ]] || continue  # the variants that split
  if [ -n "$threads0" ]; then
    goal "$variant / threads0" "$(ratio "$(median "$variant.times")" "$threads0")" 0.5
  fi
done
if [ -s fastcuda.chain ]; then
  goal "fastcuda / its critical path" "$(ratio "$(median fastcuda.times)" "$(median fastcuda.chain)")" 1.05
fi

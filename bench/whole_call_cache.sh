#!/usr/bin/env bash
# A whole-call cache, CMAKE_CUDA_COMPILER_LAUNCHER=ccache, on one corpus (issue
# 23 part 0): plain CMake + nvcc against the FastCuda module, side by side,
# each with a cache of its own. For each: a cold build (empty cache), a clean
# rebuild (`ninja -t clean`, the graph's intermediates too) with the cache it
# filled, and a host-only edit of one device-heavy TU, which misses. Medians
# of REPEATS rounds; ratios are the module's wall over plain's.
# Usage: bench/whole_call_cache.sh N ARCHS [REPEATS] [MIX] [SEED]
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
count="$1"; archs="$2"; repeats="${3:-3}"; mix="${4:-mixed}"; seed="${5:-1}"
command -v ccache > /dev/null || { echo "ccache not found"; exit 1; }
"$bench_dir/make_corpus.sh" "$work/corpus" "$count" "$archs" "$mix" "$seed"
edited=$(grep -l host_revision_ "$work"/corpus/src/*.cu | head -n 1)

clean_outputs() {  # NAME: every output removed, the cache kept
  run_quietly ninja -C "$work/$1" -t clean
  local graph
  graph=$(graph_dir_of "$1")
  if [ -n "$graph" ] && [ -f "$graph/build.ninja" ]; then run_quietly ninja -C "$graph" -t clean; fi
}
for round in $(seq "$repeats"); do
  for variant in plain module; do
    export CCACHE_DIR="$work/ccache-$variant"
    rm -rf "$CCACHE_DIR"
    configure_variant "$variant" -DCMAKE_CUDA_COMPILER_LAUNCHER=ccache
    timed "$work/$variant.cold" build_variant "$variant" > /dev/null
    clean_outputs "$variant"
    timed "$work/$variant.warm" build_variant "$variant" > /dev/null
    sed -i "s/host_revision_\([0-9a-z]*\)() { return [0-9]*; }/host_revision_\1() { return $round$RANDOM; }/" "$edited"
    timed "$work/$variant.edit" build_variant "$variant" > /dev/null
  done
done

machine_info
echo "corpus: $count TUs ($mix, seed $seed), CUDA_ARCHITECTURES=$archs, $jobs jobs, CMAKE_CUDA_COMPILER_LAUNCHER=ccache, $repeats rounds"
echo "edit: a host function of $(basename "$edited")"
printf '%-28s %10s %10s %8s\n' build "plain s" "module s" ratio
for build in cold warm edit; do
  plain=$(median "$work/plain.$build")
  module=$(median "$work/module.$build")
  printf '%-28s %10s %10s %8s\n' "$build" "$plain" "$module" "$(ratio "$module" "$plain")"
done
echo "warm over cold: plain $(ratio "$(median "$work/plain.warm")" "$(median "$work/plain.cold")"), module $(ratio "$(median "$work/module.warm")" "$(median "$work/module.cold")")"

#!/usr/bin/env bash
# A cache as CMAKE_CUDA_COMPILER_LAUNCHER on one corpus: plain
# CMake + nvcc against the FastCuda module, side by side, each with a cache of
# its own. LAUNCHER=ccache (the default) is a whole-call cache, which the
# module asks per TU first; LAUNCHER=sccache (0.10 or later) splits
# plain nvcc's calls itself, per call, and caches the module's host
# compiles, cudafe++, cicc and ptxas step by step. For each: a cold build
# (empty cache), a clean rebuild (`ninja -t clean`, the graph's intermediates
# too) with the cache it filled, and a host-only edit of one device-heavy TU;
# with sccache, also a build in a second build directory of the same sources
# with that cache (both directories are the server's SCCACHE_BASEDIRS), and
# ("shared") the module in a fresh build directory with the cache plain's
# `sccache nvcc` builds filled (the edited text, which plain built last),
# beside plain's second build directory; its hits and misses by kind.
# Each variant starts from the corpus as made, and both make one edit a round.
# Medians of REPEATS rounds; ratios are the module's wall over plain's.
# Usage: [LAUNCHER=ccache|sccache] bench/whole_call_cache.sh N ARCHS [REPEATS] [MIX] [SEED]
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
count="$1"; archs="$2"; repeats="${3:-3}"; mix="${4:-mixed}"; seed="${5:-1}"
launcher="${LAUNCHER:-ccache}"
command -v "$launcher" > /dev/null || { echo "$launcher not found"; exit 1; }
fresh_cache() {  # VARIANT: an empty cache of its own (sccache: and a server that uses it)
  export CCACHE_DIR="$work/cache-$1"  # sccache's too (restart_server)
  rm -rf "$CCACHE_DIR"
  [ "$launcher" != sccache ] || restart_server "$1"
}
restart_server() {  # VARIANT: an sccache server on that variant's cache
  export SCCACHE_DIR="$work/cache-$1" SCCACHE_SERVER_PORT=$((20000 + $$ % 20000)) SCCACHE_IDLE_TIMEOUT=0
  export SCCACHE_BASEDIRS="$work/$1:$work/$1@2"
  sccache --stop-server > /dev/null 2>&1 || true
  sccache --start-server > /dev/null 2>&1
}
trap '[ "$launcher" != sccache ] || sccache --stop-server > /dev/null 2>&1 || true; [ "${BENCH_KEEP:-0}" = 1 ] || rm -rf "$work"' EXIT
"$bench_dir/make_corpus.sh" "$work/corpus" "$count" "$archs" "$mix" "$seed"
edited=$( (grep -l host_revision_ "$work"/corpus/src/*.cu || true) | head -n 1)
[ -n "$edited" ] || { echo "the corpus has no device-heavy TU to edit: give it more TUs"; exit 1; }
cp "$edited" "$work/unedited.cu"

clean_outputs() {  # NAME: every output removed, the cache kept
  run_quietly ninja -C "$work/$1" -t clean
  local graph
  graph=$(graph_dir_of "$1")
  if [ -n "$graph" ] && [ -f "$graph/build.ninja" ]; then run_quietly ninja -C "$graph" -t clean; fi
}
for round in $(seq "$repeats"); do
  revision=$round$RANDOM
  for variant in plain module; do
    cp "$work/unedited.cu" "$edited"
    fresh_cache "$variant"
    configure_variant "$variant" -DCMAKE_CUDA_COMPILER_LAUNCHER="$launcher"
    timed "$work/$variant.cold" build_variant "$variant" > /dev/null
    clean_outputs "$variant"
    timed "$work/$variant.warm" build_variant "$variant" > /dev/null
    sed -i "s/host_revision_\([0-9a-z]*\)() { return [0-9]*; }/host_revision_\1() { return $revision; }/" "$edited"
    timed "$work/$variant.edit" build_variant "$variant" > /dev/null
    if [ "$launcher" = sccache ]; then
      configure_variant "$variant@2" -DCMAKE_CUDA_COMPILER_LAUNCHER="$launcher"
      timed "$work/$variant.elsewhere" build_variant "$variant@2" > /dev/null
    fi
  done
  if [ "$launcher" = sccache ]; then
    restart_server plain
    configure_variant "module@3" -DCMAKE_CUDA_COMPILER_LAUNCHER="$launcher"
    sccache --zero-stats > /dev/null 2>&1
    timed "$work/module.shared" build_variant "module@3" > /dev/null
    sccache --show-adv-stats | sed -n 's/^Cache \(hits\|misses\) (\(.*\)) *\([0-9]*\)$/\1 \2: \3/p' | paste -sd, > "$work/shared.counts"
  fi
done

machine_info
echo "corpus: $count TUs ($mix, seed $seed), CUDA_ARCHITECTURES=$archs, $jobs jobs, CMAKE_CUDA_COMPILER_LAUNCHER=$launcher ($("$launcher" --version | head -n 1)), $repeats rounds"
echo "edit: a host function of $(basename "$edited")"
printf '%-28s %10s %10s %8s\n' build "plain s" "module s" ratio
builds=(cold warm edit)
[ "$launcher" != sccache ] || builds+=(elsewhere shared)
for build in "${builds[@]}"; do
  plain=$(median "$work/plain.${build/shared/elsewhere}")
  module=$(median "$work/module.$build")
  printf '%-28s %10s %10s %8s\n' "$build" "$plain" "$module" "$(ratio "$module" "$plain")"
done
[ "$launcher" != sccache ] || echo "shared, last round, the module's steps in sccache: $(cat "$work/shared.counts")"
echo "warm over cold: plain $(ratio "$(median "$work/plain.warm")" "$(median "$work/plain.cold")"), module $(ratio "$(median "$work/module.warm")" "$(median "$work/module.cold")")"

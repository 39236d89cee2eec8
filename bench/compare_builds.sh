#!/usr/bin/env bash
# Side-by-side clean builds of one corpus (bench/make_corpus.sh), in turn,
# as the variants of bench/lib.sh: plain, threads0, fastnvcc (PyTorch's former
# fast_nvcc.py as the launcher, FASTNVCC_SEED, default
# ../shared/seeds/fast_nvcc.py; it falls back to plain nvcc whenever CMake
# passes -MD, which it always does), launcher, graph, module, ninja.
# VARIANTS="plain:1 threads0 graph" (environment) picks some, each repeated
# REPEATS times unless it says how often after a colon; default: all.
# Prints medians of wall time, CPU time and peak system memory, ratios to the
# best of plain and threads0, the schedule lower bound of the FastCuda
# variants (from their own .ninja_log: the longest chain of any TU, or step
# time / jobs) against the project's targets, and checks that their objects carry
# nvcc's device code. BENCH_EVENTS=1 adds each variant's instructions and
# cycles (bench/lib.sh), which do not move with the machine's load as CPU
# time does. Each variant's build directory is measured after its build
# (du), beside plain's: FastCuda's graph and intermediates cost disk.
# Usage: bench/compare_builds.sh N ARCHS [REPEATS] [MIX] [SEED]
#   e.g. bench/compare_builds.sh 48 "75-real;80-real;86-real;89-real;90-real" 3 mixed
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
count="$1"; archs="$2"; repeats="${3:-3}"; mix="${4:-mixed}"; seed="${5:-1}"
"$bench_dir/make_corpus.sh" "$work/corpus" "$count" "$archs" "$mix" "$seed"
parse_variants "${VARIANTS:-plain threads0 fastnvcc launcher graph module}" "$repeats"

for round in $(seq "$rounds"); do
  for variant in "${variants[@]}"; do
    [ "$round" -le "${repeats_of[$variant]}" ] || continue
    configure_variant "$variant"
    warm_up_variant "$variant"
    timed "$work/$variant.times" build_variant "$variant"
    build_dir_kib "$variant" >> "$work/$variant.disk"
    graph=$(graph_dir_of "$variant")
    if [ "$variant" = module_known ]; then  # ranked by remembered times: no first phase before them
      [ "$(cut -d' ' -f1 "$graph/first-phase")" -eq "$(head -1 "$graph/.ninja_log" | wc -c)" ] &&
        echo yes >> "$work/$variant.remembered" || echo no >> "$work/$variant.remembered"
    fi
    if [ -n "$graph" ] && [ -f "$graph/steps.json" ]; then
      report_seconds "$graph" bound >> "$work/$variant.bounds" || true
      report_seconds "$graph" wall >> "$work/$variant.inner" || true
    fi
  done
done

best=$(best_wall "$work/plain.times" "$work/threads0.times")
echo "corpus: $count TUs ($mix, seed $seed), CUDA_ARCHITECTURES=$archs, $jobs jobs, medians of: ${VARIANTS:-all $repeats}"
echo "(vs_peer: wall / the best of plain and threads0)"
summary_header variant peer
for variant in "${variants[@]}"; do summary_row "$variant" "$work/$variant.times" "$best"; done
if [ -n "$event_counter" ]; then
  echo "(counted events, medians; ratios over ${variants[0]}'s)"
  for variant in "${variants[@]}"; do events_row "$variant" "$work/$variant.times" "$work/${variants[0]}.times"; done
fi
echo "(build directory after a clean build, medians; goal: at most twice plain's)"
for variant in "${variants[@]}"; do
  kib=$(median "$work/$variant.disk")
  plain_kib=$([ -s "$work/plain.disk" ] && median "$work/plain.disk" || echo 0)
  printf '%-20s build dir %9s MiB  plain %9s MiB\n' "$variant" "$(ratio "$kib" 1024)" "$(ratio "$plain_kib" 1024)"
  [ "$variant" = plain ] || [ "$plain_kib" = 0 ] ||
    goal "$variant build dir / plain's" "$(ratio "$kib" "$plain_kib")" 2.00
done
for variant in "${variants[@]}"; do  # each run in round order: a round's runs ran side by side
  bounds=""
  [ ! -s "$work/$variant.bounds" ] || bounds=", bound $(paste -sd' ' "$work/$variant.bounds") s"
  echo "$variant, each run: wall $(cut -d' ' -f1 "$work/$variant.times" | paste -sd' ') s$bounds"
done
for variant in graph module module_blind module_fast module_warm module_known ninja ninja_warm; do
  [ -s "$work/$variant.bounds" ] || continue
  wall=$(median "$work/$variant.times"); bound=$(median "$work/$variant.bounds")
  echo "$variant: schedule lower bound $bound s, the graph's own Ninja run $(median "$work/$variant.inner") s" \
       "(medians of its runs; the rest of the wall time is CMake's and the launchers' work around it)"
  goal "$variant wall / lower bound" "$(ratio "$wall" "$bound")" 1.10
  [ "$variant" != module ] || goal "module, a first build: wall / lower bound" "$(ratio "$wall" "$bound")" 1.05
  [ "$variant" != module_known ] ||
    goal "module, a first build with remembered times: wall / lower bound" "$(ratio "$wall" "$bound")" 1.05
  [ -z "$best" ] || goal "$variant wall / best of plain, threads0" "$(ratio "$wall" "$best")" 0.75
done
if [ -s "$work/module_known.remembered" ]; then
  echo "module_known: each run ranked by remembered times, without a first phase:" \
       "$(paste -sd' ' "$work/module_known.remembered")"
fi
if [ -f "$work/fastnvcc.calls" ]; then
  echo "fastnvcc: $(grep -c md "$work/fastnvcc.calls") of $(wc -l < "$work/fastnvcc.calls") calls carried -MD," \
       "for which fast_nvcc.py runs plain nvcc (the dryrun's Filter Dependencies line)"
fi

for variant in graph module ninja; do
  if [ ! -d "$work/$variant" ] || [ ! -d "$work/plain" ]; then continue; fi
  echo "$variant: objects whose device code differs from nvcc's:" \
       "$(device_code_mismatches "$work/plain" "$work/$variant" '*.cu.o')" \
       "(CUB objects may: cudafe++ puts a number that changes on every run into their module id)"
done

#!/usr/bin/env bash
# Where a clean build's CPU goes, by command name: plain CMake + nvcc against
# the module's first build of N TUs (bench/make_corpus.sh, default light: one
# small kernel each, where FastCuda's own processes weigh the most), one
# architecture, each build sampled by `perf record` (499 Hz, every process
# the build starts). Prints samples per command, the difference in ms a TU,
# and the ratio of all samples. Needs perf and the right to sample (root, or
# kernel.perf_event_paranoid <= 1).
# Usage: bench/cpu_by_command.sh N [ARCHS] [MIX]
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
count="${1:?usage: bench/cpu_by_command.sh N [ARCHS] [MIX]}" archs="${2:-80-real}" mix="${3:-light}"
command -v perf > /dev/null || { echo "cpu_by_command: no perf here" >&2; exit 1; }
"$bench_dir/make_corpus.sh" "$work/corpus" "$count" "$archs" "$mix"
echo "$(machine_info)"
echo "corpus: $count TUs ($mix), CUDA_ARCHITECTURES=$archs, -j $jobs"
for variant in plain module; do
  configure_variant "$variant"
  run_quietly perf record -q -F 499 -o "$work/$variant.data" -- cmake --build "$work/$variant" -j "$jobs"
  perf report -i "$work/$variant.data" --sort comm --stdio -n 2> /dev/null |
    awk '!/^#/ && NF >= 3 { print $3, $2 }' | sort > "$work/$variant.samples"
done
join -a1 -a2 -e0 -o 0,1.2,2.2 "$work/plain.samples" "$work/module.samples" |
  awk -v n="$count" 'BEGIN { printf "%-12s %9s %9s %12s\n", "command", "plain", "module", "ms a TU" }
    { plain += $2; module += $3; rows[NR] = sprintf("%-12s %9d %9d %+12.1f", $1, $2, $3, ($3 - $2) / 499 / n * 1000) }
    END { for (i = 1; i <= NR; i++) print rows[i]
          printf "all samples: plain %d, module %d, module / plain %.3f\n", plain, module, module / plain }'

#!/usr/bin/env bash
# Where a FastCuda clean build's CPU time goes beside the tools' own: one corpus built by plain CMake + nvcc (with nvcc's --time CSV
# of its phases) and by `fastcuda ninja` on the same CMake manifest, whose
# steps record their program's CPU time (step-memory.tsv). Prints the CPU
# of both builds, the steps' programs' CPU by kind beside nvcc's phase times
# for the same TUs, and what is left: the `fastcuda step` processes, Ninja,
# and the rest of the build.
# Usage: bench/step_overhead.sh N ARCHS [MIX] [SEED]
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
count="$1"; archs="$2"; mix="${3:-mixed}"; seed="${4:-1}"
"$bench_dir/make_corpus.sh" "$work/corpus" "$count" "$archs" "$mix" "$seed"

# nvcc appends a row per phase of each call to the CSV.
configure_variant plain -DCMAKE_CUDA_FLAGS="--time=$work/nvcc-time.csv"
timed "$work/plain.times" build_variant plain
configure_variant ninja
timed "$work/ninja.times" build_variant ninja

kind_of_phase() {  # nvcc's phase times (ms, summed) by FastCuda's step kinds
  awk -F' *, *' 'NR > 1 && $2 != "nvcc (driver)" {
    if ($2 ~ /preprocessing 4/) k = "CPP_HOST"; else if ($2 ~ /preprocessing/) k = "CPP_DEVICE"
    else if ($2 == "cudafe++") k = "CUDAFE"; else if ($2 == "cicc") k = "CICC"
    else if ($2 == "ptxas") k = "PTXAS"; else if ($2 == "fatbinary") k = "FATBINARY"
    else if ($2 ~ /compiling/) k = "HOST_CC"; else k = $2
    ms[k] += $7 } END { for (k in ms) printf "%s\t%.0f\n", k, ms[k] }' "$work/nvcc-time.csv" | sort
}
step_cpu_by_kind() {  # FastCuda's steps: their programs' CPU ms by kind (steps.json names the kinds)
  local graph="$work/ninja/.fastcuda"
  jq -r '.tus[] | .work_dir as $w | .steps[] | "\(.output // ($w + "/" + .in_work_dir))\t\(.kind)"' \
    "$graph/steps.json" | sort > "$work/kinds"
  awk -F'\t' 'NF >= 3 { print $1 "\t" $3 }' "$graph/step-memory.tsv" | sort > "$work/cpu"
  join -t $'\t' "$work/kinds" "$work/cpu" |
    awk -F'\t' '{ ms[$2] += $3; n[$2]++ } END { for (k in ms) printf "%s\t%.0f\t%d\n", k, ms[k], n[k] }' | sort
}

plain_cpu=$(median "$work/plain.times" 2)
fast_cpu=$(median "$work/ninja.times" 2)
echo "corpus: $count TUs ($mix, seed $seed), CUDA_ARCHITECTURES=$archs, $jobs jobs"
echo "CPU s: plain nvcc $plain_cpu, fastcuda ninja $fast_cpu (ratio $(ratio "$fast_cpu" "$plain_cpu"))"
echo "kind        nvcc phases ms (wall)   fastcuda steps ms (CPU)   steps"
join -t $'\t' -a 2 <(kind_of_phase) <(step_cpu_by_kind) |
  awk -F'\t' '{ printf "%-11s %22s %25s %7s\n", $1, NF == 4 ? $2 : "-", NF == 4 ? $3 : $2, NF == 4 ? $4 : $3;
                steps += NF == 4 ? $3 : $2; count += NF == 4 ? $4 : $3 }
              END { printf "step programs: %.1f s in %d steps\n", steps / 1000, count > "/dev/stderr" }' 2> "$work/sum"
cat "$work/sum"
awk -v total="$fast_cpu" '/^step programs/ { s = $3; n = $6 }
  END { printf "left to fastcuda step, Ninja and the rest: %.1f s (%.1f ms a step); plain nvcc beside its tools: see the phases\n",
        total - s, (total - s) * 1000 / n }' "$work/sum"

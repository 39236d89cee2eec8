#!/usr/bin/env bash
# The split fatbinary in the edit loop: one heavy TU of INSTANCES template
# instances (default 96, each a kernel unrolled UNROLL times, default 64;
# its fatbin several MB uncompressed) and a small kernel whose constant
# each round changes (a device edit: every sub-step reruns), built with
# --compress-mode=size for ARCHS, PTX and SASS of each (ten images for
# five), side by side in each round:
#   threads0   nvcc --threads 0 --time: its wall, and its fatbinary phase
#   fastcuda   `fastcuda gen` (regenerated untimed before each rebuild), then
#              ninja -j nproc: its wall, and the fatbin tail: from the end of
#              the last ptxas to the end of the last step writing the
#              fatbin (the stitch)
#   before     the same with FASTCUDA_BEFORE=PATH, a fastcuda from before
#              the split (fatbinary whole), where given
# Then the CPU time of the split against the whole: the last rebuild's
# fatbinary steps (one per image) and stitch, from the graph's
# step-memory.tsv, against fatbinary run whole on the same images.
# Prints medians and the goals: tail <= 0.3 x nvcc's fatbinary phase,
# edit loop <= 0.35 x threads0. With CLEAN_TUS=N and FASTCUDA_BEFORE, then
# a clean build of an N-TU mixed corpus (bench/compare_builds.sh, variant
# graph, CUDAFLAGS=--compress-mode=size, the same architectures, REPEATS
# times) with each fastcuda: the split's cost where every core is busy.
# Usage: bench/fatbin_split.sh [ARCHS] [REPEATS]   (ARCHS: comma-separated, default 75,80,86,89,90)
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
archs="${1:-75,80,86,89,90}"; repeats="${2:-3}"
instances="${INSTANCES:-96}"; unroll="${UNROLL:-64}"
cd "$work"
{
  echo 'template <int N> __global__ void instance(float *x) {'
  echo '  float v = x[threadIdx.x];'
  echo '#pragma unroll'
  echo "  for (int i = 0; i < $unroll; ++i) v = v * (N * 1.37f + i) + __sinf(v + (N ^ i) * 0.5f);"
  echo '  x[threadIdx.x] = v;'
  echo '}'
  for i in $(seq 0 $((instances - 1))); do echo "template __global__ void instance<$i>(float *);"; done
  echo '__global__ void edit_marker(float *x) { x[0] = 0.0f; }'
} > tu.cu
flags=(--compress-mode=size)
for sm in ${archs//,/ }; do flags+=(-gencode "arch=compute_$sm,code=[sm_$sm,compute_$sm]"); done
variants=(threads0 fastcuda)
[ -z "${FASTCUDA_BEFORE:-}" ] || variants+=(before)

binary_of() { if [ "$1" = before ]; then echo "$FASTCUDA_BEFORE"; else echo "$FASTCUDA_BINARY"; fi; }
generate() {  # NAME
  "$(binary_of "$1")" gen --out "g.$1" -j "$jobs" -- nvcc -c tu.cu -o "$1.o" "${flags[@]}"
}
compile() {  # NAME
  if [ "$1" = threads0 ]; then
    rm -f nvcc-time.csv
    nvcc --threads 0 --time nvcc-time.csv -c tu.cu -o threads0.o "${flags[@]}"
  else
    ninja -C "g.$1" -j "$jobs"
  fi
}
fatbinary_phase() {  # seconds of nvcc's fatbinary phase (nvcc --time's CSV)
  awk -F' , ' '$2 == "fatbinary" { s += $7 } END { printf "%.3f\n", s / 1000 }' nvcc-time.csv
}
fatbin_tail() {  # DIR MARK: seconds from the last ptxas's end to the fatbin's, in the build after MARK log lines
  tail -n +"$(($2 + 1))" "$1/.ninja_log" | awk -F'\t' '
    $4 ~ /\.cubin$/ && $2 > ptxas { ptxas = $2 }
    $4 ~ /(\.image\.fatbin|\.fatbin\.c)$/ && $2 > fatbin { fatbin = $2 }
    END { if (fatbin == 0) exit 1; printf "%.3f\n", (fatbin - ptxas) / 1000 }'
}

for variant in "${variants[@]}"; do
  [ "$variant" = threads0 ] || { generate "$variant" > /dev/null && run_quietly compile "$variant"; }
done
for round in $(seq "$repeats"); do
  sed -i "s/x\[0\] = [0-9]*\.0f/x[0] = $round.0f/" tu.cu
  for variant in "${variants[@]}"; do
    if [ "$variant" = threads0 ]; then
      timed threads0.times compile threads0
      fatbinary_phase >> threads0.fatbinary
    else
      run_quietly generate "$variant"
      mark=$(wc -l < "g.$variant/.ninja_log")
      timed "$variant.times" compile "$variant"
      fatbin_tail "g.$variant" "$mark" >> "$variant.tail"
    fi
  done
done

# CPU: the last rebuild's split steps, and fatbinary run whole on its images.
work_dir=$(dirname "$(find g.fastcuda -name '*.image.fatbin' -print -quit)")
split_cpu=$(awk -F'\t' '$1 ~ /(\.image\.fatbin|\.fatbin\.c)$/ { cpu[$1] = $3 }
                        END { for (o in cpu) { s += cpu[o]; n++ } printf "%.2f %d\n", s / 1000, n }' \
              g.fastcuda/step-memory.tsv)
# The stitch's own command (its images, flags and program), writing the fatbin whole.
stitch=$(grep -m1 -A3 -E '^build [^:]*: FATBIN_STITCH' g.fastcuda/build.ninja | sed -n 's/^  argv = -- //p')
eval "set -- ${stitch//'${w}'/$work_dir}"
whole=()
for word; do
  case $word in --embedded-fatbin=*) whole+=(--create=whole.fatbin) ;; *) whole+=("$word") ;; esac
done
timed whole.times "${whole[@]}"
uncompressed=$(cat "$work_dir"/*.cubin "$work_dir"/*.ptx | wc -c)

echo "fatbin split: one TU of $instances template instances (unroll $unroll), sm $archs, PTX and SASS each," \
     "--compress-mode=size, $jobs jobs; a device edit, then a rebuild; medians of $repeats"
machine_info
echo "images: $(find "$work_dir" -name '*.image.fatbin' | wc -l), $((uncompressed / 1024)) KiB uncompressed, $(($(stat -c %s whole.fatbin) / 1024)) KiB compressed"
threads0=$(median threads0.times)
summary_header variant threads0
for variant in "${variants[@]}"; do summary_row "$variant" "$variant.times" "$threads0"; done
nvcc_fatbinary=$(median threads0.fatbinary)
echo "nvcc --threads 0: fatbinary phase $nvcc_fatbinary s"
for variant in "${variants[@]}"; do
  [ "$variant" = threads0 ] || echo "$variant: fatbin tail after the last ptxas $(median "$variant.tail") s"
done
read -r split_seconds split_steps <<< "$split_cpu"
echo "CPU: split $split_seconds s in $split_steps steps; whole fatbinary $(median whole.times 2) s" \
     "(wall $(median whole.times 1) s)"
goal "fastcuda fatbin tail / nvcc's fatbinary phase" "$(ratio "$(median fastcuda.tail)" "$nvcc_fatbinary")" 0.3
goal "fastcuda / threads0" "$(ratio "$(median fastcuda.times)" "$threads0")" 0.35

if [ -n "${CLEAN_TUS:-}" ] && [ -n "${FASTCUDA_BEFORE:-}" ]; then
  cuda_archs=$(sed "s/[0-9]\+/&-real/g; s/,/;/g" <<< "$archs")
  for binary in "$FASTCUDA_BEFORE" "$FASTCUDA_BINARY"; do
    echo "clean build, $CLEAN_TUS TUs, with $binary:"
    CUDAFLAGS=--compress-mode=size FASTCUDA_BINARY=$binary VARIANTS="graph:$repeats" \
      "$bench_dir/compare_builds.sh" "$CLEAN_TUS" "$cuda_archs" "$repeats" mixed | grep -E '^(variant|graph) '
  done
fi

#!/usr/bin/env bash
# Side-by-side clean builds of one corpus (bench/make_corpus.sh), in turn:
#   plain     CMake + Ninja, plain nvcc
#   threads0  CMake + Ninja, nvcc --threads 0
#   fastnvcc  CMake + Ninja, PyTorch's former fast_nvcc.py as the launcher
#             (FASTNVCC_SEED, default ../shared/seeds/fast_nvcc.py; it falls
#             back to plain nvcc whenever CMake passes -MD, which it always does)
#   launcher  CMake + Ninja, CMAKE_CUDA_COMPILER_LAUNCHER=fastcuda (per TU)
#   graph     fastcuda build --compdb on CMake's compile_commands.json
#             (every sub-step of every TU in one Ninja graph)
#   module    CMake + Ninja with FastCuda injected into the unmodified
#             project (-DCMAKE_PROJECT_INCLUDE=cmake/FastCuda.cmake)
# VARIANTS="plain graph" (environment) picks some; default: all.
# Each is repeated; prints medians of wall time, CPU time and peak system
# memory (MemTotal - MemAvailable, sampled every 0.2 s, above the level
# before the build), ratios to the best of plain and threads0, the schedule
# lower bound of the FastCuda variants (from their own .ninja_log: the
# longest chain of any TU, or step time / jobs) and checks that their
# objects carry nvcc's device code. Usage: bench/compare_builds.sh N ARCHS [REPEATS] [MIX] [SEED]
#   e.g. bench/compare_builds.sh 48 "75-real;80-real;86-real;89-real;90-real" 3 mixed
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../cmake/bootstrap.sh"
count="$1"; archs="$2"; repeats="${3:-3}"; mix="${4:-mixed}"; seed="${5:-1}"
jobs="$(nproc)"
work="$(mktemp -d "$FASTCUDA_BUILD_DIR/bench-builds.XXXXXX")"
trap 'rm -rf "$work"' EXIT
"$(dirname "${BASH_SOURCE[0]}")/make_corpus.sh" "$work/corpus" "$count" "$archs" "$mix" "$seed"

configure() {  # NAME [CMAKE ARGS...]
  local name="$1"; shift
  rm -rf "$work/$name"
  cmake -S "$work/corpus" -B "$work/$name" -G Ninja -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_EXPORT_COMPILE_COMMANDS=ON "$@" >/dev/null
}

used_kib() { awk '/^MemTotal/ { t = $2 } /^MemAvailable/ { a = $2 } END { print t - a }' /proc/meminfo; }

timed() {  # LOG COMMAND...: appends "wall cpu peak_mib" of one run to LOG
  local log="$1"; shift
  local baseline sampler
  baseline=$(used_kib)
  (peak=0; while :; do u=$(used_kib); [ "$u" -gt "$peak" ] && peak=$u && echo "$peak" > "$work/peak"; sleep 0.2; done) &
  sampler=$!
  /usr/bin/time -f "%e %U %S" -o "$work/time.txt" "$@" >/dev/null 2>"$work/last.err" ||
    { kill "$sampler"; cat "$work/last.err" >&2; return 1; }
  kill "$sampler"; wait "$sampler" 2>/dev/null || true
  awk -v p="$(cat "$work/peak")" -v b="$baseline" '{ printf "%s %.2f %d\n", $1, $2 + $3, (p - b) / 1024 }' \
    "$work/time.txt" >> "$log"
}

fast_nvcc_seed="${FASTNVCC_SEED:-$FASTCUDA_SOURCE_DIR/../shared/seeds/fast_nvcc.py}"
cat > "$work/fast_nvcc_shim" <<SHIM
#!/bin/sh
# CMake launcher shim: fast_nvcc.py takes nvcc's arguments after "--".
nvcc="\$1"; shift
case " \$* " in *" -MD "*) echo md >> "$work/fastnvcc.calls" ;; *) echo plain >> "$work/fastnvcc.calls" ;; esac
exec python3 "$fast_nvcc_seed" --nvcc "\$nvcc" -- "\$@"
SHIM
chmod +x "$work/fast_nvcc_shim"

run_variant() {  # NAME
  local name="$1"
  case "$name" in
    plain) configure plain; timed "$work/plain.times" cmake --build "$work/plain" -j "$jobs" ;;
    threads0) configure threads0 -DCMAKE_CUDA_FLAGS=--threads=0
              timed "$work/threads0.times" cmake --build "$work/threads0" -j "$jobs" ;;
    fastnvcc) configure fastnvcc -DCMAKE_CUDA_COMPILER_LAUNCHER="$work/fast_nvcc_shim"
              timed "$work/fastnvcc.times" cmake --build "$work/fastnvcc" -j "$jobs" ;;
    launcher) configure launcher -DCMAKE_CUDA_COMPILER_LAUNCHER="$FASTCUDA_BINARY"
              timed "$work/launcher.times" cmake --build "$work/launcher" -j "$jobs" ;;
    module) configure module -DCMAKE_PROJECT_INCLUDE="$FASTCUDA_SOURCE_DIR/cmake/FastCuda.cmake" \
              -DFASTCUDA_EXECUTABLE="$FASTCUDA_BINARY"
            timed "$work/module.times" cmake --build "$work/module" -j "$jobs" ;;
    graph) configure graph
           timed "$work/graph.times" "$FASTCUDA_BINARY" build --compdb "$work/graph/compile_commands.json" \
             --out "$work/graph/fastcuda" -j "$jobs" ;;
  esac
}

read -r -a variants <<< "${VARIANTS:-plain threads0 fastnvcc launcher graph module}"
for _ in $(seq "$repeats"); do
  for variant in "${variants[@]}"; do run_variant "$variant"; done
done

median() {  # FILE COLUMN
  awk -v c="$2" '{ print $c }' "$1" | sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'
}
best=$(for peer in plain threads0; do
  if [ -f "$work/$peer.times" ]; then median "$work/$peer.times" 1; fi
done | sort -n | head -1)
echo "corpus: $count TUs ($mix, seed $seed), CUDA_ARCHITECTURES=$archs, $jobs jobs, $repeats runs each (medians)"
printf '%-10s %9s %9s %9s %12s\n' variant wall_s cpu_s peak_MiB vs_best_peer
for variant in "${variants[@]}"; do
  wall=$(median "$work/$variant.times" 1); cpu=$(median "$work/$variant.times" 2)
  peak=$(median "$work/$variant.times" 3)
  awk -v n="$variant" -v w="$wall" -v c="$cpu" -v p="$peak" -v b="$best" \
    'BEGIN { printf "%-10s %9.2f %9.2f %9d %12.3f\n", n, w, c, p, w / b }'
done
for variant in graph module; do
  graph_dir="$work/$variant/fastcuda"
  [ -f "$graph_dir/steps.json" ] || continue
  bound=$("$FASTCUDA_BINARY" report "$graph_dir" -j "$jobs" | sed -n 's/^lower bound.*) = \([0-9.]*\) s;.*/\1/p')
  awk -v n="$variant" -v w="$(median "$work/$variant.times" 1)" -v b="$bound" \
    'BEGIN { printf "%s: schedule lower bound %.2f s (last run), wall / bound %.3f\n", n, b, w / b }'
done
if [ -f "$work/fastnvcc.calls" ]; then
  echo "fastnvcc: $(grep -c md "$work/fastnvcc.calls") of $(wc -l < "$work/fastnvcc.calls") calls carried -MD," \
       "for which fast_nvcc.py runs plain nvcc (the dryrun's Filter Dependencies line)"
fi

for variant in graph module; do
  if [ ! -d "$work/$variant" ] || [ ! -d "$work/plain" ]; then continue; fi
  mismatches=0
  while IFS= read -r object; do
    relative="${object#"$work/plain/"}"
    objcopy -O binary --only-section=.nv_fatbin "$object" "$work/a.fb"
    objcopy -O binary --only-section=.nv_fatbin "$work/$variant/$relative" "$work/b.fb"
    cmp -s "$work/a.fb" "$work/b.fb" || mismatches=$((mismatches + 1))
  done < <(find "$work/plain" -name '*.cu.o')
  echo "$variant: objects whose device code differs from nvcc's: $mismatches" \
       "(CUB objects may: cudafe++ puts a number that changes on every run into their module id)"
done

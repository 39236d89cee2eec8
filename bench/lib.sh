#!/usr/bin/env bash
# Sourced by every bench/ script: finds or builds fastcuda (cmake/bootstrap.sh),
# makes the script's scratch directory $work (removed on exit unless
# BENCH_KEEP=1), and holds the shared helpers: timing, medians, peak memory,
# the build variants, and readings of FastCuda's own logs.
# Timing uses date and bash's `times`, not /usr/bin/time, which the GPU
# machine may lack. BENCH_JOBS=N builds with -j N instead of one job per core.
# BENCH_EVENTS=1 also counts each timed run's instructions and cycles
# (bench/count_events.cc), which the machine's load does not move as it
# moves CPU time.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../cmake/bootstrap.sh"
bench_dir="$FASTCUDA_SOURCE_DIR/bench"
jobs="${BENCH_JOBS:-$(nproc)}"
work="$(mktemp -d "$FASTCUDA_BUILD_DIR/bench-$(basename "$0" .sh).XXXXXX")"
if [ "${BENCH_KEEP:-0}" = 1 ]; then echo "scratch kept: $work"; else trap 'rm -rf "$work"' EXIT; fi
# First builds are first builds: no step times remembered from elsewhere
# (module_known names its own history).
export FASTCUDA_STEP_HISTORY=off
known_history=$work/known-step-times

machine_info() {  # one line: what the numbers were measured on
  local cpu memory
  cpu=$(sed -n '/^model name[[:space:]]*: /{s///p;q;}' /proc/cpuinfo)
  memory=$(awk '/^MemTotal/ { printf "%.0f GiB", $2 / 1048576 }' /proc/meminfo)
  echo "machine: $(nproc) cores ($cpu), $memory; $(. /etc/os-release && echo "$PRETTY_NAME");" \
       "nvcc $(nvcc --version | sed -n 's/.*release \([0-9.]*\).*/\1/p'), ninja $(ninja --version)," \
       "cmake $(cmake --version | sed -n '1s/cmake version //p'), $({ make --version 2>/dev/null || echo 'no make'; } | head -1);" \
       "$("$FASTCUDA_BINARY" --version); $(date -u '+%Y-%m-%d %H:%M UTC')"
}

run_quietly() {  # COMMAND...: its output only if it fails
  "$@" > "$work/last.log" 2>&1 || { local status=$?; cat "$work/last.log" >&2; return "$status"; }
}

used_kib() { awk '/^MemTotal/ { t = $2 } /^MemAvailable/ { a = $2 } END { print t - a }' /proc/meminfo; }

event_counter=""
if [ "${BENCH_EVENTS:-0}" = 1 ]; then
  event_counter=$work/count_events
  "${CXX:-g++}" -O2 -std=c++20 -o "$event_counter" "$bench_dir/count_events.cc"
fi
count_start() {  # counts what this (sub)shell starts from now on (BENCH_EVENTS=1), until count_stop
  [ -n "$event_counter" ] || return 0
  local counted=$BASHPID  # read here: `COMMAND &` expands its words in the child
  local files="$work/events.$counted"  # subshells may count at once
  rm -f "$files".*
  mkfifo "$files.fifo"
  "$event_counter" "$counted" "$files.out" < "$files.fifo" > "$files.ready" &
  counter_pid=$!
  exec {counter_input}> "$files.fifo"
  until [ -s "$files.ready" ]; do kill -0 "$counter_pid" || return 1; sleep 0.01; done
}
count_stop() {  # prints " task_clock_ms instructions cycles" of what ran since count_start
  [ -n "$event_counter" ] || return 0
  exec {counter_input}>&-
  wait "$counter_pid"
  local counts
  read -ra counts < "$work/events.$BASHPID.out"
  printf ' %s' "${counts[@]}"
}

timed() {  # LOG COMMAND...: appends "wall_s cpu_s peak_MiB" of one run to LOG, with
  # BENCH_EVENTS=1 then " task_clock_ms instructions cycles" (count_events.cc).
  # Peak: system memory in use (MemTotal - MemAvailable, sampled every 0.2 s)
  # above its level before the run. CPU: the run's children, from `times`.
  local log="$1"; shift
  local baseline sampler start end
  baseline=$(used_kib)
  echo "$baseline" > "$work/peak"
  (peak=$baseline; while :; do u=$(used_kib); [ "$u" -gt "$peak" ] && peak=$u && echo "$peak" > "$work/peak"; sleep 0.2; done) &
  sampler=$!
  start=$(date +%s%N)
  (count_start && run_quietly "$@" && times > "$work/times" && count_stop > "$work/counted") ||
    { kill "$sampler"; return 1; }
  end=$(date +%s%N)
  kill "$sampler"; wait "$sampler" 2>/dev/null || true
  # times' second line: the children's user and system time, as 1m2.345s.
  awk -v w="$(( (end - start) / 1000000 ))" -v p="$(cat "$work/peak")" -v b="$baseline" -v e="$(cat "$work/counted" 2>/dev/null)" '
    function s(t) { split(t, a, /[ms]/); return a[1] * 60 + a[2] }
    NR == 2 { printf "%.3f %.2f %d%s\n", w / 1000, s($1) + s($2), (p - b) / 1024, e }' "$work/times" >> "$log"
}

wall_ms() {  # COMMAND...: wall milliseconds of one run, output discarded
  local start end
  start=$(date +%s%N)
  run_quietly "$@"
  end=$(date +%s%N)
  awk -v ns="$(( end - start ))" 'BEGIN { printf "%.1f\n", ns / 1e6 }'
}

median() {  # FILE [COLUMN]: the median of a column (the lower middle of an even count)
  awk -v c="${2:-1}" '{ print $c }' "$1" | sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'
}

# Build variants of the corpus in $work/corpus, each in $work/NAME:
#   plain     CMake + nvcc          threads0  CMake + nvcc --threads 0
#   fastnvcc  CMake + PyTorch's former fast_nvcc.py as the launcher (shim below)
#   launcher  CMake + CMAKE_CUDA_COMPILER_LAUNCHER=fastcuda (per TU)
#   graph     `fastcuda build --compdb` on CMake's compile database
#   module    CMake with cmake/FastCuda.cmake injected into the unmodified project
#   module_fast  the same with FASTCUDA_MODULE_ID=own and FASTCUDA_SPLIT_COMPILE=auto
#   module_blind  the module's first build without its first phase
#             (FASTCUDA_FIRST_PHASE=off): Ninja ranks the steps by edge count
#   module_warm  the module's clean rebuild in a build directory that has built
#             once (warm_up_variant): objects and intermediates gone, step times kept
#   module_known  the module's first build in a fresh build directory, with the
#             step times that a build of the corpus in another directory left
#             in FastCuda's step history (every other variant has none:
#             FASTCUDA_STEP_HISTORY=off, a CI job without a cache)
#   ninja     `fastcuda ninja` on the plain CMake build directory (no module):
#             CMake's whole manifest, nvcc edges split, in one Ninja
#   ninja_warm   its clean rebuild after a first build, as module_warm
configure_variant() {  # NAME[@N] [CMAKE ARGS...]: a fresh build directory (generator: BENCH_GENERATOR);
  local name="$1"; shift                 # NAME@N: NAME's configuration in a build directory of its own
  local args=()
  case "${name%@*}" in
    threads0) args=(-DCMAKE_CUDA_FLAGS=--threads=0) ;;
    fastnvcc) write_fast_nvcc_shim; args=(-DCMAKE_CUDA_COMPILER_LAUNCHER="$work/fast_nvcc_shim") ;;
    launcher) args=(-DCMAKE_CUDA_COMPILER_LAUNCHER="$FASTCUDA_BINARY") ;;
    module|module_warm|module_blind|module_known) args=(-DCMAKE_PROJECT_INCLUDE="$FASTCUDA_SOURCE_DIR/cmake/FastCuda.cmake"
                  -DFASTCUDA_EXECUTABLE="$FASTCUDA_BINARY") ;;
    module_fast) args=(-DCMAKE_PROJECT_INCLUDE="$FASTCUDA_SOURCE_DIR/cmake/FastCuda.cmake"
                       -DFASTCUDA_EXECUTABLE="$FASTCUDA_BINARY" -DFASTCUDA_MODULE_ID=own
                       -DFASTCUDA_SPLIT_COMPILE=auto) ;;
  esac
  rm -rf "${work:?}/$name"
  run_quietly cmake -S "$work/corpus" -B "$work/$name" -G "${BENCH_GENERATOR:-Ninja}" \
    -DCMAKE_BUILD_TYPE=Release -DCMAKE_EXPORT_COMPILE_COMMANDS=ON "${args[@]}" "$@"
}

warm_up_variant() {  # NAME: for module_warm and ninja_warm, a first build, then every output removed;
  case "$1" in      # for module_known, once, a build in another directory that fills the history
    module_known)
      [ ! -d "$known_history" ] || return 0
      configure_variant module_known@elsewhere
      FASTCUDA_STEP_HISTORY=$known_history run_quietly cmake --build "$work/module_known@elsewhere" -j "$jobs"
      rm -rf "${work:?}/module_known@elsewhere" ;;
    module_warm)
      run_quietly build_variant "$1"
      run_quietly cmake --build "$work/$1" --target clean
      run_quietly ninja -C "$work/$1/fastcuda" -t clean ;;  # the graph's intermediates; .ninja_log stays
    ninja_warm)
      run_quietly build_variant "$1"
      run_quietly "$FASTCUDA_BINARY" ninja -C "$work/$1" -t clean ;;
  esac
}

graph_dir_of() {  # NAME: the FastCuda graph directory of a variant's build
  case "$1" in
    ninja | ninja_warm) echo "$work/$1/.fastcuda" ;;
    graph | module*) echo "$work/$1/fastcuda" ;;
  esac
}

build_variant() {  # NAME: builds it at -j $jobs
  if [ "$1" = graph ]; then
    "$FASTCUDA_BINARY" build --compdb "$work/graph/compile_commands.json" --out "$work/graph/fastcuda" -j "$jobs"
  elif [ "$1" = module_blind ]; then
    FASTCUDA_FIRST_PHASE=off cmake --build "$work/$1" -j "$jobs"
  elif [ "$1" = module_known ]; then
    FASTCUDA_STEP_HISTORY=$known_history cmake --build "$work/$1" -j "$jobs"
  elif [ "$1" = ninja ] || [ "$1" = ninja_warm ]; then
    "$FASTCUDA_BINARY" ninja -C "$work/$1" -j "$jobs"
  else
    cmake --build "$work/$1" -j "$jobs"
  fi
}

write_fast_nvcc_shim() {  # fast_nvcc.py takes nvcc's arguments after "--"; notes which calls had -MD
  local seed="${FASTNVCC_SEED:-$FASTCUDA_SOURCE_DIR/../shared/seeds/fast_nvcc.py}"
  cat > "$work/fast_nvcc_shim" <<SHIM
#!/bin/sh
nvcc="\$1"; shift
case " \$* " in *" -MD "*) echo md >> "$work/fastnvcc.calls" ;; *) echo plain >> "$work/fastnvcc.calls" ;; esac
exec python3 "$seed" --nvcc "\$nvcc" -- "\$@"
SHIM
  chmod +x "$work/fast_nvcc_shim"
}

parse_variants() {  # "NAME[:REPEATS] ..." DEFAULT_REPEATS: sets variants=(NAME...),
  # repeats_of[NAME] and rounds (the most repeats of any)
  declare -gA repeats_of=()
  variants=(); rounds=0
  local item
  for item in $1; do
    variants+=("${item%%:*}")
    if [[ "$item" == *:* ]]; then repeats_of[${item%%:*}]="${item#*:}"; else repeats_of[$item]="$2"; fi
    [ "${repeats_of[${item%%:*}]}" -le "$rounds" ] || rounds="${repeats_of[${item%%:*}]}"
  done
}

# Readings of a FastCuda graph directory's last build (`fastcuda report`).
report_seconds() {  # DIR WHAT: WHAT is "bound" (schedule lower bound), "chain" (longest TU
  # chain) or "wall" (the graph's own build, without CMake's work around it)
  local pattern='s/^lower bound.*) = \([0-9.]*\) s;.*/\1/p' value
  [ "$2" = chain ] && pattern='s/^lower bound max(longest chain \([0-9.]*\) s,.*/\1/p'
  [ "$2" = wall ] && pattern='s/^wall \([0-9.]*\) s;.*/\1/p'
  value=$("$FASTCUDA_BINARY" report "$1" -j "$jobs" | sed -n "$pattern")
  [ -n "$value" ] || { echo "bench: no '$2' in fastcuda report $1" >&2; return 1; }
  echo "$value"
}

max_concurrency() {  # DIR: the most steps that ran at once in DIR/.ninja_log (one build's log)
  # An edge with several outputs has a line per output: count it once. At
  # equal times an end comes before a start (Ninja logs milliseconds).
  awk -F'\t' '!/^#/ && NF >= 5 && !seen[$1 FS $2 FS $5]++ { print $1, 1; print $2, -1 }' "$1/.ninja_log" |
    sort -k1,1n -k2,2n | awk '{ n += $2; if (n > most) most = n } END { print most + 0 }'
}

# Tables of timed logs: a header, then a row per log.
summary_header() { printf '%-20s %4s %9s %9s %9s %9s\n' "$1" runs wall_s cpu_s peak_MiB "vs_${2:-best}"; }
summary_row() {  # LABEL LOG [BEST_WALL]: medians of a timed log, and the wall ÷ BEST_WALL
  awk -v n="$1" -v r="$(wc -l < "$2")" -v w="$(median "$2" 1)" -v c="$(median "$2" 2)" \
      -v p="$(median "$2" 3)" -v b="${3:-0}" \
    'BEGIN { printf "%-20s %4d %9.3f %9.2f %9d %9s\n", n, r, w, c, p, (b > 0 ? sprintf("%.3f", w / b) : "-") }'
}
events_row() {  # LABEL LOG [BASE_LOG]: medians of a timed log's counted events (BENCH_EVENTS=1),
  # and its instructions and cycles over BASE_LOG's
  [ "$(awk '{ print NF; exit }' "$2")" -ge 6 ] || return 0
  local base="${3:-$2}"
  awk -v n="$1" -v t="$(median "$2" 4)" -v i="$(median "$2" 5)" -v c="$(median "$2" 6)" \
      -v bi="$(median "$base" 5)" -v bc="$(median "$base" 6)" -v each="$(cut -d' ' -f5 "$2" | paste -sd' ')" '
    function g(v) { return v == "-" ? "-" : sprintf("%.2f", v / 1e9) }
    function r(a, b) { return (a == "-" || b == "-" || b == 0) ? "-" : sprintf("%.4f", a / b) }
    BEGIN { printf "%-20s task clock %.2f s, instructions %s G (%s), cycles %s G (%s); each run, instructions: %s\n",
            n, t / 1000, g(i), r(i, bi), g(c), r(c, bc), each }'
}
build_dir_kib() {  # NAME: the size of a variant's whole build directory (objects, graph, intermediates)
  du -sk "$work/$1" | cut -f1
}

device_code_mismatches() {  # BASE_DIR DIR PATTERN: "M of N": of the N objects matching PATTERN under
  # BASE_DIR that carry device code (.nv_fatbin, or __nv_relfatbin under -rdc), the M whose
  # device code differs from that of the object of the same path under DIR (or that DIR lacks),
  # each of those appended to $work/device-code.differs
  local mismatches=0 carrying=0 object section
  while IFS= read -r object; do
    for section in .nv_fatbin __nv_relfatbin; do
      objcopy -O binary --only-section="$section" "$object" "$work/a.fb"
      [ -s "$work/a.fb" ] || continue
      carrying=$((carrying + 1))
      objcopy -O binary --only-section="$section" "$2/${object#"$1/"}" "$work/b.fb" 2>/dev/null &&
        cmp -s "$work/a.fb" "$work/b.fb" ||
        { mismatches=$((mismatches + 1)); echo "$2/${object#"$1/"}" >> "$work/device-code.differs"; }
    done
  done < <(find "$1" -name "$3" -not -path '*/.fastcuda/*' -not -path '*/fastcuda/*')
  echo "$mismatches of $carrying"
}

best_wall() {  # LOG...: the smallest median wall time of the logs that exist
  local log
  for log in "$@"; do if [ -f "$log" ]; then median "$log" 1; fi; done | sort -g | head -1
}
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (a > 0 && b > 0) printf "%.3f\n", a / b; else print "n/a" }'; }
goal() {  # TEXT RATIO LIMIT: one line, a ratio against its goal
  awk -v t="$1" -v r="$2" -v l="$3" 'BEGIN {
    printf "%s: %s (goal <= %.2f: %s)\n", t, r, l, (r == "n/a" ? "not measured" : (r + 0 <= l ? "met" : "missed")) }'
}

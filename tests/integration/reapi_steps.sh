#!/usr/bin/env bash
# Device steps run remotely over REAPI v2: FASTCUDA_DEVICE_LAUNCHER is
# tests/tools/reapi/reapi_run.py, a client of a BuildGrid 0.4 server of the
# test's own (its scheduler in a private PostgreSQL cluster), whose one bot
# (tests/tools/reapi/bot.py) runs in a network namespace of its own and
# reaches the server over TCP through a veth pair. The bot runs each action in
# a fresh directory, so every input and output of a step travels through the
# CAS. Two TUs built for sm_80 and sm_90 through `fastcuda build --compdb`:
#  cold        every device step (cicc, ptxas, fatbinary of each image: the
#              graph's edges; the stitch of the fatbin runs here) runs on the
#              bot; objects equal nvcc's
#  warm        after `ninja -t clean` each of them hits the action cache and
#              none runs on the bot; objects equal nvcc's; `fastcuda report`
#              counts the misses of the cold build and the hits of this one
#              per step kind, as the launcher said them
#  lost bot    with a.cu edited, obj/a.o removed and the bot stopped, a's
#              device steps wait for a bot until the launcher's --timeout: the
#              build fails within a bound, each device step it started has
#              none of its outputs (no partial one, none stale of the old
#              a.cu), and a.o is absent or nvcc's. (a.o is removed first
#              because, like nvcc after a failed compile, a failed build
#              leaves an earlier object as it was.) Once a new bot starts, the
#              same build succeeds with nvcc's objects, a's device steps run on
#              the new bot
#  lost mid-step  with a.cu edited again and obj/a.o removed, the build starts
#              with a bot that takes a step and holds it; that bot is killed
#              while it holds it and a new one starts: the server takes the
#              silent bot for lost after its keepalive (10 s) and gives the
#              step to the new bot, the build succeeds within a bound with
#              nvcc's objects, and a's device steps ran on the new bot; the
#              test prints how much longer than the keepalive it took
#  unreachable with the launcher pointed at a closed port the build fails
#              within a bound, fastcuda's output has the launcher's one-line
#              error naming the URL, and no object is left
# Needs root (network namespace, the postgres user), PostgreSQL's server
# binaries (/usr/lib/postgresql/*/bin) and a Python with buildgrid and
# psycopg2 (FASTCUDA_TEST_BUILDGRID_PYTHON, else FASTCUDA_TEST_TOOLS_DIR/python):
# skipped with one line where one is missing.
#
# usage: reapi_steps.sh FASTCUDA_BINARY [NVCC]
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
source "$here/checks.sh" reapi_steps "$@"
tools=$(realpath "$here/../tools/reapi")

skip() {  # WHY: one line, nothing left behind
  echo "SKIP reapi_steps: $1"
  rm -rf "$scratch"
  exit 0
}
py=${FASTCUDA_TEST_BUILDGRID_PYTHON:-${FASTCUDA_TEST_TOOLS_DIR:+$FASTCUDA_TEST_TOOLS_DIR/python}}
[ -n "$py" ] && "$py" -c 'import buildgrid.server.app, psycopg2' 2> /dev/null ||
  skip "no Python with buildgrid and psycopg2 (FASTCUDA_TEST_BUILDGRID_PYTHON: '${FASTCUDA_TEST_BUILDGRID_PYTHON:-}')"
pg_bin=$(ls -d /usr/lib/postgresql/*/bin 2> /dev/null | sort -V | tail -n 1)
[ -x "$pg_bin/initdb" ] || skip "no PostgreSQL server binaries (/usr/lib/postgresql/*/bin/initdb)"
[ "$(id -u)" = 0 ] || skip "not root (a network namespace and the postgres user need it)"
id postgres > /dev/null 2>&1 || skip "no postgres user"
# The database runs as postgres, in the scratch directory.
chmod 755 "$scratch"
runuser -u postgres -- test -x "$scratch" || skip "the postgres user cannot reach $scratch"

free_port() {  # FROM: the first port from FROM on that nothing listens on
  local port=$1
  while (exec 3<> "/dev/tcp/127.0.0.1/$port") 2> /dev/null; do port=$((port + 1)); done
  echo "$port"
}
wait_for() {  # SECONDS COMMAND...: true once COMMAND is, false after SECONDS
  local end=$((SECONDS + $1))
  shift
  until "$@" 2> /dev/null; do
    [ "$SECONDS" -lt "$end" ] || return 1
    sleep 0.2
  done
}
listening() { (exec 3<> "/dev/tcp/127.0.0.1/$1"); }
# Names and addresses of this run's own (from $$), so that runs at once do
# not clash: a /30 of 10.64.0.0/10 per process id.
pg_port=$(free_port $((30000 + $$ % 10000)))
port=$(free_port $((40000 + $$ % 10000)))
closed=$(free_port $((50000 + $$ % 10000)))
netns=fastcuda-reapi-$$ veth_host=fcrh$$ veth_bot=fcrb$$
subnet=10.$((64 + $$ / 65536 % 64)).$(($$ / 256 % 256)).$(($$ % 64 * 4))
host_addr=${subnet%.*}.$((${subnet##*.} + 1)) bot_addr=${subnet%.*}.$((${subnet##*.} + 2))
database=postgresql+psycopg2://bgd@127.0.0.1:$pg_port/bgd
pg=$scratch/postgres server_pid='' bot_pid='' pg_started=''

cleanup() {  # before finish, which removes the scratch directory the database runs in; again on EXIT
  local pid
  for pid in $bot_pid $server_pid; do kill "$pid" 2> /dev/null && wait "$pid" 2> /dev/null || true; done
  bot_pid='' server_pid=''
  [ -z "$pg_started" ] || runuser -u postgres -- "$pg_bin/pg_ctl" -D "$pg/data" -m fast -w stop > /dev/null 2>&1 || true
  pg_started=''
  ip netns delete "$netns" 2> /dev/null || true
  ip link delete "$veth_host" 2> /dev/null || true
}
trap cleanup EXIT

start_postgres() {
  mkdir -p "$pg" && chown postgres: "$pg"
  runuser -u postgres -- "$pg_bin/initdb" -D "$pg/data" -A trust -U bgd > "$scratch/initdb.log" 2>&1 &&
    pg_started=1 && runuser -u postgres -- "$pg_bin/pg_ctl" -D "$pg/data" -l "$pg/log" -w \
      -o "-p $pg_port -k $pg -c listen_addresses=127.0.0.1 -c fsync=off" start > /dev/null &&
    runuser -u postgres -- "$pg_bin/createdb" -h 127.0.0.1 -p "$pg_port" -U bgd bgd
}
# BuildGrid's bgd command, from $py (an array, not a function, so that $! is
# the server's own process id and not a subshell's)
bgd=("$py" -c 'import sys; from buildgrid.server.app import cli; sys.argv[0] = "bgd"; sys.exit(cli())')
start_network() {  # the bot's namespace, joined to the host by a veth pair
  ip link add "$veth_host" type veth peer name "$veth_bot" netns "$netns" &&
    ip addr add "$host_addr/30" dev "$veth_host" && ip link set "$veth_host" up &&
    ip -n "$netns" addr add "$bot_addr/30" dev "$veth_bot" && ip -n "$netns" link set "$veth_bot" up &&
    ip -n "$netns" link set lo up
}
start_server() {
  sed -e "s|@PORT@|$port|g" -e "s|@BOT_SIDE@|$host_addr|g" -e "s|@DATABASE@|$database|g" \
    "$tools/server.yml.in" > "$scratch/server.yml"
  "${bgd[@]}" migrate apply "$database" > "$scratch/migrate.log" 2>&1 || return 1
  "${bgd[@]}" server start "$scratch/server.yml" > "$scratch/server.log" 2>&1 &
  server_pid=$!
  wait_for 60 listening "$port"
}
start_bot() {  # [BOT OPTIONS...]
  local before
  before=$(sessions)
  ip netns exec "$netns" "$py" "$tools/bot.py" --remote "http://$host_addr:$port" --log "$scratch/bot.log" \
    --workdir "$scratch/bot" "$@" >> "$scratch/bot.out" 2>&1 &
  bot_pid=$!
  wait_for 30 sessions_over "$before"
}
sessions() { grep -c '^bot: session' "$scratch/bot.out" || true; }  # how many bots have said hello
sessions_over() { [ "$(sessions)" -gt "$1" ]; }
stop_bot() {  # as if its machine were lost: it says nothing to the server
  kill -KILL "$bot_pid" && wait "$bot_pid" 2> /dev/null || true
  bot_pid=''
}
# Root in a container without CAP_NET_ADMIN cannot.
ip netns add "$netns" 2> "$scratch/netns.log" || skip "cannot make a network namespace: $(head -n 1 "$scratch/netns.log")"
start_network

project=$scratch/project
mkdir -p "$project/obj" "$scratch/ref"
kernel() {  # TU FACTOR
  printf '__global__ void k%s(float *x) { x[threadIdx.x] *= %s.f; }\nvoid launch_%s(float *x) { k%s<<<1, 32>>>(x); }\n' \
    "$1" "$2" "$1" "$1" > "$project/$1.cu"
}
archs=(-gencode arch=compute_80,code=sm_80 -gencode arch=compute_90,code=sm_90)
{
  echo "["
  for tu in a b; do
    kernel "$tu" 2
    [ "$tu" = a ] || echo ","
    printf '{"directory": "%s", "file": "%s.cu", "output": "obj/%s.o", "command": "%s %s -c %s.cu -o obj/%s.o"}' \
      "$project" "$tu" "$tu" "$NVCC" "${archs[*]}" "$tu" "$tu"
  done
  echo "]"
} > "$project/compile_commands.json"
reference() { for tu in "$@"; do "$NVCC" "${archs[@]}" -c "$project/$tu.cu" -o "$scratch/ref/$tu.o"; done; }
reference a b &  # on the second core while the server starts
references=$!
same_as_nvcc() { same_object "$project/obj/a.o" "$scratch/ref/a.o" && same_object "$project/obj/b.o" "$scratch/ref/b.o"; }

start_postgres || { cat "$scratch/initdb.log" "$pg/log" 2>&1 | tail -n 20; exit 1; }
start_server || { tail -n 20 "$scratch/migrate.log" "$scratch/server.log"; exit 1; }
touch "$scratch/bot.log" "$scratch/bot.out" "$scratch/client.log"
start_bot || { tail -n 20 "$scratch/bot.out"; exit 1; }

wait "$references"

build() {  # LOG REMOTE [TIMEOUT]: builds project/graph, each device step through reapi_run.py
  FASTCUDA_DEVICE_LAUNCHER="$(printf '%q ' "$py" "$tools/reapi_run.py" --remote "$2" --connect-timeout 3 \
      --timeout "${3:-120}" --log "$scratch/client.log")" \
    "$FASTCUDA" build --compdb "$project/compile_commands.json" --out "$project/graph" -j 2 > "$scratch/$1" 2>&1
}
remote=http://127.0.0.1:$port
device_steps() {  # the graph's device edges: "COUNT TOOL" lines
  awk '$1 == "build" && match($0, /: (CICC|PTXAS|FATBINARY) /) { print tolower(substr($0, RSTART + 2, RLENGTH - 3)) }' \
    "$project/graph/build.ninja" | sort | uniq -c | awk '{ print $1, $2 }'
}
ran_since() {  # MARK: the bot's actions after its log had MARK lines, as device_steps
  tail -n +"$(($1 + 1))" "$scratch/bot.log" | awk '{ print $2 }' | sort | uniq -c | awk '{ print $1, $2 }'
}
lines() { wc -l < "$1"; }
launched_all() {  # every device edge's command goes through reapi_run.py
  awk '$1 == "build" && $0 ~ /: (CICC|PTXAS|FATBINARY) / { edge = 1; next }
       edge && $1 == "argv" { if ($0 !~ /reapi_run\.py/) missed = 1; edge = 0 } END { exit missed }' \
    "$project/graph/build.ninja"
}

cold() {
  build cold.log "$remote" && same_as_nvcc && launched_all || return 1
  [ "$(ran_since 0)" = "$(device_steps)" ] || { echo "  the bot ran:" $(ran_since 0) "; the graph has:" $(device_steps); return 1; }
  [ "$(device_steps | awk '{ n += $1 } END { print n }')" = 12 ] || { echo "  device steps:" $(device_steps); return 1; }
  reported 0 4 0 4 0 4
}
reported() {  # CICC-HITS CICC-MISSES PTXAS-HITS PTXAS-MISSES FATBINARY-HITS FATBINARY-MISSES: fastcuda report's counts
  local wanted
  wanted=$(printf '  %-10s %5d hit %5d miss\n' CICC "$1" "$2" FATBINARY "$5" "$6" PTXAS "$3" "$4")
  "$FASTCUDA" report "$project/graph" > "$scratch/report.txt" &&
    [ "$(sed -n '/^step cache, as the launchers said:$/,/^$/p' "$scratch/report.txt" | sed '1d;/^$/d')" = "$wanted" ] ||
    { echo "  fastcuda report says:"; sed -n '/^step cache/,/^$/p' "$scratch/report.txt"; return 1; }
}
check "cold: every device step (4 cicc, 4 ptxas, 4 fatbinary: one per image) runs on the bot and misses; objects equal nvcc's" cold

warm() {
  local bot_mark client_mark
  bot_mark=$(lines "$scratch/bot.log") client_mark=$(lines "$scratch/client.log")
  ninja -C "$project/graph" -t clean > /dev/null && build warm.log "$remote" && same_as_nvcc || return 1
  [ "$(lines "$scratch/bot.log")" = "$bot_mark" ] || { echo "  the bot ran:" $(ran_since "$bot_mark"); return 1; }
  [ "$(tail -n +"$((client_mark + 1))" "$scratch/client.log" | grep -c '^cached=True ')" = 12 ] ||
    { echo "  launcher calls:"; tail -n +"$((client_mark + 1))" "$scratch/client.log"; return 1; }
  reported 4 0 4 0 4 0
}
check "warm: after ninja -t clean every device step hits the action cache, none runs on the bot; objects equal nvcc's" warm

started_outputs_absent() {  # LOG: no output of a device edge the build LOG started is there
  local desc output
  while read -r desc; do
    for output in $(awk -v desc="$desc" '$1 == "build" { line = $0 } $1 == "desc" && substr($0, index($0, "=") + 2) == desc {
                      sub(/^build /, "", line); sub(/: .*/, "", line); print line }' "$project/graph/build.ninja"); do
      [ ! -e "$output" ] || { echo "  $desc left $output"; return 1; }
    done
  done < <(sed -n -E 's/^\[[0-9]+\/[0-9]+\] ((CICC|PTXAS|FATBINARY) .*a\.cu)$/\1/p' "$scratch/$1")
}
lost_bot() {
  local start bot_mark
  stop_bot
  kernel a 3 && reference a && rm "$project/obj/a.o"
  start=$SECONDS
  ! build lost.log "$remote" 5 || { echo "  the build succeeded without a bot"; return 1; }
  [ $((SECONDS - start)) -le 30 ] || { echo "  the failing build took $((SECONDS - start)) s"; return 1; }
  grep -q "^reapi_run: no result from $remote within 5 s" "$scratch/lost.log" ||
    { echo "  no launcher error:"; tail -n 5 "$scratch/lost.log"; return 1; }
  started_outputs_absent lost.log || return 1
  [ ! -e "$project/obj/a.o" ] || same_object "$project/obj/a.o" "$scratch/ref/a.o" || { echo "  a stale a.o is left"; return 1; }
  bot_mark=$(lines "$scratch/bot.log")
  start_bot && build retry.log "$remote" && same_as_nvcc || { echo "  the build after a new bot started failed"; return 1; }
  ran_on_new_bot "$bot_mark" a.compute_80.ptx a.compute_90.ptx a.compute_80.cubin a.compute_90.cubin \
    a.compute_80.cubin.image.fatbin a.compute_90.cubin.image.fatbin
}
ran_on_new_bot() {  # MARK OUTPUT...: the bot ran a step writing each OUTPUT after its log had MARK lines
  # (at least once: a job the server gave the lost bot before it was found
  # lost can run again once its session expires)
  local mark=$1 output since
  shift
  for output in "$@"; do
    since=$(tail -n +"$((mark + 1))" "$scratch/bot.log") && grep -q " $output\( \|$\)" <<<"$since" ||
      { echo "  the new bot did not run the step writing $output"; return 1; }
  done
}
check "lost bot: a's edited steps fail within 30 s, leaving no output and no stale a.o; a new bot runs them, nvcc's objects" \
  lost_bot

stop_build() {  # PID: a build started in the background, and what it runs, stopped before the next check
  pkill -TERM -P "$1" 2> /dev/null || true
  kill "$1" 2> /dev/null || true
  wait "$1" 2> /dev/null || true
}
holding_since() {  # MARK: a bot said it holds a lease after bot.out had MARK lines
  [ -n "$(tail -n +"$(($1 + 1))" "$scratch/bot.out" | grep '^bot: holding lease ')" ]
}
lost_mid_step() {
  local start lost_at bot_mark out_mark build_pid status=0
  stop_bot
  kernel a 5 && reference a && rm "$project/obj/a.o"
  out_mark=$(lines "$scratch/bot.out")
  start_bot --hold 600 || return 1
  bot_mark=$(lines "$scratch/bot.log") start=$SECONDS
  build mid_step.log "$remote" 90 &
  build_pid=$!
  wait_for 30 holding_since "$out_mark" || { echo "  no bot took a step"; stop_bot; stop_build "$build_pid"; return 1; }
  stop_bot
  lost_at=$SECONDS
  start_bot || { stop_build "$build_pid"; return 1; }
  wait "$build_pid" || status=$?
  [ "$status" = 0 ] || { echo "  the build failed ($status):"; tail -n 5 "$scratch/mid_step.log"; return 1; }
  [ $((SECONDS - start)) -le 60 ] || { echo "  the build took $((SECONDS - start)) s"; return 1; }
  echo "  (the build ended $((SECONDS - lost_at)) s after its bot was lost)"
  same_as_nvcc && ran_on_new_bot "$bot_mark" a.compute_80.ptx a.compute_90.ptx a.compute_80.cubin a.compute_90.cubin \
    a.compute_80.cubin.image.fatbin a.compute_90.cubin.image.fatbin
}
check "lost mid-step: a bot killed while it holds a step loses it to a new bot; the build succeeds within 60 s, nvcc's objects" \
  lost_mid_step

unreachable() {
  local start=$SECONDS
  ninja -C "$project/graph" -t clean > /dev/null
  ! build unreachable.log "http://127.0.0.1:$closed" || { echo "  the build succeeded"; return 1; }
  [ $((SECONDS - start)) -le 30 ] || { echo "  the failing build took $((SECONDS - start)) s"; return 1; }
  grep -q "^reapi_run: cannot reach the REAPI server http://127.0.0.1:$closed within 3 s$" "$scratch/unreachable.log" ||
    { echo "  no launcher error:"; tail -n 5 "$scratch/unreachable.log"; return 1; }
  [ ! -e "$project/obj/a.o" ] && [ ! -e "$project/obj/b.o" ] || { echo "  an object is left"; return 1; }
}
check "unreachable: a closed port fails the build within 30 s with the launcher's error naming the URL; no object" unreachable

cleanup
finish

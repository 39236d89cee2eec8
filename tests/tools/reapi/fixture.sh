# Sourced by tests/integration/reapi_steps.sh and bench/remote_build.sh (a
# test tool, not part of FastCuda): a BuildGrid 0.4 server of their own (its
# scheduler in a private PostgreSQL cluster, its CAS on disk) and bots of
# tests/tools/reapi/bot.py, each in a network namespace of its own, joined to
# the host by a veth pair (tests/tools/network.sh, whose functions it brings).
# Needs root; the caller checks that first.
#
# Before sourcing, set: scratch (a directory the postgres user can reach), py
# (a Python with buildgrid and psycopg2), pg_bin (PostgreSQL's bin directory);
# optionally bots (how many namespaces, 1 to 4), threads (the server's, 10),
# pool (its database connections, 5), tls_key and tls_cert (PEM files: the
# server also listens over TLS on 127.0.0.1:$tls_port), jwt_secret (a file:
# the server takes only calls with a JWT signed with it, HS256, and the bots
# send $jwt_secret.token; jwt_token FILE [SECONDS] writes another).
# Then: start_network, start_postgres, start_server, start_bot [N [OPTIONS]]
# (bot_cpus=LIST pins the bot with taskset; bot_key=SUFFIX keeps several
# bots of namespace N apart),
# stop_bot [N], stop_server, stop_build PID, use_own_proxies, cleanup (also
# on EXIT). The
# server listens on 127.0.0.1:$port for the client and on $host_addr_N:$port
# for bot N, which reaches it as http://$host_addr_N:$port; $closed is a
# port where nothing listens. Every bot logs its actions to $scratch/bot.log
# (`ran TOOL OUTPUTS...`) and what it says to $scratch/bot.out.
tools=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
threads=${threads:-10} pool=${pool:-5}
source "$tools/../network.sh"

# Below Linux's ephemeral ports (32768 on): a port where nothing listens
# there may still be the local end of another test's connection, and the
# server then fails to bind it. Below sccache-dist's (sccache_dist.sh).
pg_port=$(free_port $((10000 + $$ % 3000)))
port=$(free_port $((13000 + $$ % 3000)))
closed=$(free_port $((16500 + $$ % 3000)))
tls_port=$(free_port $((port + 1)))
database=postgresql+psycopg2://bgd@127.0.0.1:$pg_port/bgd
pg=$scratch/postgres server_pid='' pg_started=''
declare -A bot_pids=()

cleanup() {  # before finish, which removes the scratch directory the database runs in; again on EXIT
  local pid n log
  for n in "${!bot_pids[@]}"; do kill -KILL "${bot_pids[$n]}" 2> /dev/null && wait "${bot_pids[$n]}" 2> /dev/null || true; done
  bot_pids=()
  [ -z "$server_pid" ] || { kill "$server_pid" 2> /dev/null && wait "$server_pid" 2> /dev/null || true; }
  server_pid=''
  # The client's proxies that the caller's builds started (use_own_proxies);
  # their logs stay in the scratch directory
  for log in "${proxies_dir:-/nonexistent}"/fastcuda-remote-*/*.log; do
    [ -f "$log" ] || continue
    for pid in $(sed -n 's/.* as pid \([0-9]*\)$/\1/p' "$log"); do kill "$pid" 2> /dev/null || true; done
  done
  [ -z "${proxies_dir:-}" ] || { cp -r "$proxies_dir/." "$scratch/run/" 2> /dev/null; rm -rf "$proxies_dir"; }
  proxies_dir=''
  [ -z "$pg_started" ] || runuser -u postgres -- "$pg_bin/pg_ctl" -D "$pg/data" -m fast -w -t 30 stop > /dev/null 2>&1 || true
  pg_started=''
  stop_network
}
trap cleanup EXIT

# The client's proxies of the caller's builds are its own: their sockets and
# logs in a directory of this run's, exported as XDG_RUNTIME_DIR. Under /tmp,
# not the scratch directory: a socket's path must stay short, and the client
# falls back to /tmp (shared with every other build) past 60 bytes.
use_own_proxies() {
  proxies_dir=$(mktemp -d /tmp/fcr-run.XXXXXX)
  mkdir -p "$scratch/run"
  export XDG_RUNTIME_DIR=$proxies_dir
}

# Every wait bounded: initdb 2 minutes, the server's start 1 (pg_ctl -t),
# createdb 1; their output in $scratch/initdb.log, $pg/log, $scratch/createdb.log
start_postgres() {
  mkdir -p "$pg" && chown postgres: "$pg"
  timeout --foreground -k 5 120 runuser -u postgres -- "$pg_bin/initdb" -D "$pg/data" -A trust -U bgd > "$scratch/initdb.log" 2>&1 &&
    pg_started=1 && runuser -u postgres -- "$pg_bin/pg_ctl" -D "$pg/data" -l "$pg/log" -w -t 60 \
      -o "-p $pg_port -k $pg -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=300" start > /dev/null &&
    PGCONNECT_TIMEOUT=10 timeout --foreground -k 5 60 runuser -u postgres -- "$pg_bin/createdb" -h 127.0.0.1 -p "$pg_port" -U bgd bgd \
      > "$scratch/createdb.log" 2>&1
}
# BuildGrid's bgd command, from $py (an array, not a function, so that $! is
# the server's own process id and not a subshell's)
bgd=("$py" -c 'import sys; from buildgrid.server.app import cli; sys.argv[0] = "bgd"; sys.exit(cli())')
start_server() {
  local n channels=''
  if [ -n "${tls_cert:-}" ]; then
    channels+="  - !channel  # the client's over TLS"$'\n'"    address: \"127.0.0.1:$tls_port\""$'\n'
    channels+="    insecure-mode: false"$'\n'"    credentials:"$'\n'"      tls-server-key: $tls_key"$'\n'
    channels+="      tls-server-cert: $tls_cert"$'\n'
  fi
  for n in $(seq "$bots"); do
    channels+="  - !channel  # bot $n's, from its network namespace"$'\n'"    address: \"$(host_addr "$n"):$port\""$'\n'"    insecure-mode: true"$'\n'
  done
  local authorization=$'authorization:\n  method: none'
  if [ -n "${jwt_secret:-}" ]; then
    authorization=$'authorization:\n  method: jwt\n  algorithm: hs256\n'"  secret: $jwt_secret"
    jwt_token "$jwt_secret.token" || return 1
  fi
  mkdir -p "$scratch/cas"
  awk -v channels="$channels" -v authorization="$authorization" '$0 == "@BOT_CHANNELS@" { printf "%s", channels; next }
    $0 == "@AUTHORIZATION@" { print authorization; next } { print }' "$tools/server.yml.in" |
    sed -e "s|@PORT@|$port|g" -e "s|@DATABASE@|$database|g" -e "s|@CAS@|$scratch/cas|g" \
      -e "s|@THREADS@|$threads|g" -e "s|@POOL@|$pool|g" > "$scratch/server.yml"
  [ -n "$pg_migrated" ] || timeout --foreground -k 5 180 "${bgd[@]}" migrate apply "$database" > "$scratch/migrate.log" 2>&1 || return 1
  pg_migrated=1
  "${bgd[@]}" server start "$scratch/server.yml" > "$scratch/server.log" 2>&1 &
  server_pid=$!
  # Every channel: a bot that finds its own closed gives up at once, and the
  # client's may open first
  wait_for 60 listening "$port" || return 1
  for n in $(seq "$bots"); do wait_for 30 listening "$port" "$(host_addr "$n")" || return 1; done
}
pg_migrated=''
jwt_token() {  # FILE [SECONDS]: a token signed with $jwt_secret, valid for SECONDS (3600), written to FILE
  "$py" -c 'import jwt, sys, time
secret = open(sys.argv[1]).read().strip()
print(jwt.encode({"sub": "fastcuda-test", "exp": int(time.time()) + int(sys.argv[2])}, secret, algorithm="HS256"))' \
    "$jwt_secret" "${2:-3600}" > "$1.new" && mv "$1.new" "$1"
}
stop_server() {  # as if its machine were lost
  kill -KILL "$server_pid" && wait "$server_pid" 2> /dev/null || true
  server_pid=''
}
touch "$scratch/bot.log" "$scratch/bot.out"
sessions() { grep -c '^bot: session' "$scratch/bot.out" || true; }  # how many bots have said hello
sessions_over() { [ "$(sessions)" -gt "$1" ]; }
start_bot() {  # [N [BOT OPTIONS...]]: a bot in namespace N (1), once it has a session
  local n=${1:-1} before
  shift || true
  before=$(sessions)
  ip netns exec "$(netns "$n")" ${bot_cpus:+taskset -c "$bot_cpus"} "$py" "$tools/bot.py" \
    --remote "http://$(host_addr "$n"):$port" --log "$scratch/bot.log" --workdir "$scratch/bot$n-${#bot_pids[@]}" \
    ${jwt_secret:+--token-file "$jwt_secret.token"} \
    "$@" >> "$scratch/bot.out" 2>&1 &
  bot_pids[$n${bot_key:-}]=$!
  wait_for 30 sessions_over "$before"
}
stop_bot() {  # [N]: as if its machine were lost: it says nothing to the server
  local n=${1:-1}
  [ -n "${bot_pids[$n]:-}" ] || return 0
  kill -KILL "${bot_pids[$n]}" && wait "${bot_pids[$n]}" 2> /dev/null || true
  unset "bot_pids[$n]"
}
stop_build() {  # PID: a build started in the background, and what it runs, stopped
  pkill -TERM -P "$1" 2> /dev/null || true
  kill "$1" 2> /dev/null || true
  wait "$1" 2> /dev/null || true
}

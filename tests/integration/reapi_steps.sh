#!/usr/bin/env bash
# Device steps run remotely over REAPI v2 through FastCuda's own client
# (fastcuda-remote beside the fastcuda binary, as `cmake --install` puts it),
# chosen by FASTCUDA_REMOTE=grpc://HOST:PORT. The server is BuildGrid 0.4 from
# PyPI, the test's own (its scheduler in a private PostgreSQL cluster, its CAS
# on disk, tests/tools/reapi/server.yml.in); its bot (tests/tools/reapi/bot.py)
# runs in a network namespace of its own, reaches the server over TCP through
# a veth pair and runs each action in a fresh directory, so every input and
# output travels through the CAS. The server takes only calls with a JWT
# (BuildGrid's jwt authorization, HS256): the bot sends its own, the builds
# theirs through FASTCUDA_REMOTE_TOKEN_FILE. Two TUs for sm_80 through
# `fastcuda build --compdb` (3 remote steps each: cudafe++, cicc, ptxas; fatbinary
# runs locally; the preprocessing and the host compile are cached here, run
# locally on a miss and stored):
#  start proxy  `fastcuda-remote --start-proxy` (what `fastcuda build` runs
#               first) returns at once, and the proxy listens soon after
#  cold         every device edge's command is fastcuda-remote's; every device
#               step runs on the bot and misses; objects equal nvcc's;
#               `fastcuda report` counts the misses per step kind, those
#               cached here too
#  warm         after `ninja -t clean`, built with `--remote URL` (the CMake
#               module's FASTCUDA_REMOTE) in place of the variable: every device
#               step hits the action cache, none runs on the bot; objects equal
#               nvcc's
#  module id    a TU whose module id nvcc makes anew in every run (CUB's
#               pattern), built in a second build directory: cudafe++'s cached
#               action gives back its id, and no step runs on the bot
#  cached here  a TU with a header in a second build directory: every step
#               hits, the preprocessing and the host compile too, nvcc's
#               object; the header edited, a third misses every step and
#               builds nvcc's object of the edited source
#  run here     a new TU built with FASTCUDA_REMOTE_LOCAL=always: every step
#               the cache misses runs locally, none on the bot, nvcc's
#               object, `fastcuda report` counting them as run on idle local
#               cores; in a second build directory with `never`, each hits
#               the result the first stored, none on the bot. The other
#               cases run with `never`: a step on an idle local core would
#               not reach the bot they watch
#  tls          the same after `ninja -t clean` through grpcs:// to the server's
#               TLS port with FASTCUDA_REMOTE_TLS_CA naming its certificate:
#               every step hits; without the CA (fallback off) the build fails
#               with one line naming the endpoint, no object
#  auth         a's steps again (`ninja -t clean` of its object), the token
#               file rewritten with a token of another secret under the
#               running proxy: they run locally with one line naming the
#               endpoint and the refusal (UNAUTHENTICATED), nvcc's objects;
#               with no token and the fallback off the build fails at once
#               with that line, no object; the valid token written back: they
#               hit; b's steps again with the token as FASTCUDA_REMOTE_HEADER's
#               `Authorization: Bearer ...` (fallback off): they hit
#  broken cache a's PTX corrupted in the CAS (digest mismatch) and b's cubin
#               removed from it, both under action-cache entries: after `ninja
#               -t clean` each is run again with the cache skipped (never
#               written from the broken blob), objects equal nvcc's
#  down at start  the endpoint a closed port: with the default fallback the
#               build runs its steps locally, says so in one line naming the
#               endpoint, objects equal nvcc's; with FASTCUDA_REMOTE_FALLBACK=off
#               it fails within a bound with one line naming the endpoint and
#               leaves no object
#  timeout      a bot that takes a step and holds it: with FASTCUDA_REMOTE_TIMEOUT=3
#               and fallback off the build fails within a bound naming the
#               timeout, and no device step of a left an output (none partial,
#               none stale)
#  ctrl-c       the build interrupted (SIGINT to its process group) while the
#               bot holds a step: it stops within a bound, no device step of a
#               left an output or a temporary (the next case's build gives
#               nvcc's objects)
#  worker lost  a bot killed while it holds a step: the server takes it for lost
#               after its keepalive (10 s), another bot runs the step, the build
#               succeeds with nvcc's objects
#  long step   a step that runs past the server's keepalive (10 s): its bot,
#               telling the server all along that it holds the lease, keeps
#               it and its session; the build succeeds (fallback off) with
#               nvcc's objects and no step ran twice
#  server lost  the server killed while a bot holds a step: the client's retries
#               end, the steps run locally (one line), nvcc's objects
# Needs root (network namespace, the postgres user), PostgreSQL's server
# binaries (/usr/lib/postgresql/*/bin), a Python with buildgrid and psycopg2
# (FASTCUDA_TEST_BUILDGRID_PYTHON, else FASTCUDA_TEST_TOOLS_DIR/python) and a
# FastCuda built with its remote client: skipped with one line where one is
# missing.
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
client=$(dirname "$FASTCUDA")/fastcuda-remote
[ -x "$client" ] || skip "FastCuda was built without its remote client (no $client)"
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

# A self-signed certificate for the server's TLS port (the tls case only)
tls_key='' tls_cert=''
if openssl req -x509 -newkey rsa:2048 -nodes -days 1 -subj /CN=localhost -addext subjectAltName=DNS:localhost \
  -keyout "$scratch/tls.key" -out "$scratch/tls.crt" > /dev/null 2>&1; then
  tls_key=$scratch/tls.key tls_cert=$scratch/tls.crt
fi
# The server's JWT secret (the bot's token, $jwt_secret.token, is made from it)
jwt_secret=$scratch/jwt.secret
head -c 32 /dev/urandom | base64 > "$jwt_secret"
source "$tools/fixture.sh"
# Root in a container without CAP_NET_ADMIN cannot.
ip netns add "$netns" 2> "$scratch/netns.log" || skip "cannot make a network namespace: $(head -n 1 "$scratch/netns.log")"
start_network

project=$scratch/project
mkdir -p "$project/obj" "$scratch/ref"
kernel() {  # TU FACTOR
  printf '__global__ void k%s(float *x) { x[threadIdx.x] *= %s.f; }\nvoid launch_%s(float *x) { k%s<<<1, 32>>>(x); }\n' \
    "$1" "$2" "$1" "$1" > "$project/$1.cu"
}
archs=(-arch=sm_80)
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
# nvcc's objects for a.cu as the cases below edit it (FACTOR 3 to 7), on the
# second core while the server starts
references() {
  local factor
  reference a b
  mkdir -p "$scratch/edits"
  for factor in 3 4 5 6 7; do
    kernel a "$factor" && mv "$project/a.cu" "$scratch/edits/a$factor.cu"
    "$NVCC" "${archs[@]}" -c "$scratch/edits/a$factor.cu" -o "$scratch/edits/a$factor.o"
  done
  kernel a 2
}
references &
references=$!
same_as_nvcc() { same_object "$project/obj/a.o" "$scratch/ref/a.o" && same_object "$project/obj/b.o" "$scratch/ref/b.o"; }

start_postgres || { cat "$scratch/initdb.log" "$pg/log" 2>&1 | tail -n 20; exit 1; }
start_server || { tail -n 20 "$scratch/migrate.log" "$scratch/server.log"; exit 1; }
start_bot || { tail -n 20 "$scratch/bot.out"; exit 1; }
wait "$references"

use_own_proxies
export FASTCUDA_REMOTE_CONNECT_TIMEOUT=3 FASTCUDA_REMOTE_RETRIES=2 FASTCUDA_REMOTE_TIMEOUT=60 \
  FASTCUDA_REMOTE_IDLE=60 FASTCUDA_REMOTE_STATS=$scratch/stats
touch "$scratch/stats"
export FASTCUDA_REMOTE_TOKEN_FILE=$scratch/token FASTCUDA_REMOTE_LOCAL=never
jwt_token "$FASTCUDA_REMOTE_TOKEN_FILE"
remote=grpc://127.0.0.1:$port
build_args=()
build() {  # LOG [VARIABLE=VALUE...]: builds project/graph with FASTCUDA_REMOTE=$remote and the variables
  local log=$1
  shift
  env FASTCUDA_REMOTE="$remote" "$@" "$FASTCUDA" build --compdb "$project/compile_commands.json" \
    --out "$project/graph" -j 2 "${build_args[@]}" > "$scratch/$log" 2>&1
}
device_steps() {  # the graph's remote edges: "COUNT TOOL" lines
  awk '$1 == "build" && match($0, /: (CUDAFE|CICC|PTXAS) /) {
         tool = tolower(substr($0, RSTART + 2, RLENGTH - 3)); print tool == "cudafe" ? "cudafe++" : tool }' \
    "$project/graph/build.ninja" | sort | uniq -c | awk '{ print $1, $2 }'
}
ran_since() {  # MARK: the bot's actions after its log had MARK lines, as device_steps
  tail -n +"$(($1 + 1))" "$scratch/bot.log" | awk '{ print $2 }' | sort | uniq -c | awk '{ print $1, $2 }'
}
lines() { wc -l < "$1"; }
launched_all() {  # every remote edge's command is the shipped client's, with the endpoint; fatbinary's not
  awk -v client="$client --remote $remote" '$1 == "build" && $0 ~ /: (CUDAFE|CICC|PTXAS|FATBINARY) / { edge = $0; next }
       edge && $1 == "argv" { if ((index($0, client) == 0) != (edge ~ /: FATBINARY /)) missed = 1; edge = "" }
       END { exit missed }' \
    "$project/graph/build.ninja"
}
reported() {  # HITS MISSES [GRAPH]: fastcuda report's counts of each kind the client runs or caches here
  local wanted kind
  wanted=$(for kind in CICC CPP_DEVICE CPP_HOST CUDAFE HOST_CC PTXAS; do printf '  %-10s %5d hit %5d miss\n' "$kind" "$1" "$2"; done)
  "$FASTCUDA" report "${3:-$project/graph}" > "$scratch/report.txt" &&
    [ "$(sed -n '/^step cache, as the launchers said:$/,/^$/p' "$scratch/report.txt" | sed '1d;/^$/d')" = "$wanted" ] ||
    { echo "  fastcuda report says:"; sed -n '/^step cache/,/^$/p' "$scratch/report.txt"; return 1; }
}

proxy_listening() { compgen -G "$proxies_dir/fastcuda-remote-*/*.sock" > /dev/null; }
start_proxy() {  # as `fastcuda build` has it before the steps run
  local start=$SECONDS
  ! proxy_listening || { echo "  a proxy runs already"; return 1; }
  "$client" --remote "$remote" --start-proxy || { echo "  it failed"; return 1; }
  [ $((SECONDS - start)) -le 1 ] || { echo "  it took $((SECONDS - start)) s"; return 1; }
  wait_for 15 proxy_listening || { echo "  no proxy listens"; return 1; }
}
check "start proxy: fastcuda-remote --start-proxy returns at once, and the proxy the steps use listens soon after" \
  start_proxy

cold() {
  build cold.log && same_as_nvcc && launched_all || { tail -n 20 "$scratch/cold.log"; return 1; }
  [ "$(ran_since 0)" = "$(device_steps)" ] || { echo "  the bot ran:" $(ran_since 0) "; the graph has:" $(device_steps); return 1; }
  [ "$(device_steps | awk '{ n += $1 } END { print n }')" = 6 ] || { echo "  remote steps:" $(device_steps); return 1; }
  reported 0 2
}
check "cold: every remote step (2 each of cudafe++, cicc, ptxas) goes through fastcuda-remote to the bot and misses, fatbinary runs locally; nvcc's objects" cold

warm() {
  local bot_mark
  bot_mark=$(lines "$scratch/bot.log")
  # `build --remote` as the CMake module's FASTCUDA_REMOTE passes it: the same steps
  build_args=(--remote "$remote")
  ninja -C "$project/graph" -t clean > /dev/null && build warm.log FASTCUDA_REMOTE= || { build_args=(); return 1; }
  build_args=()
  same_as_nvcc && launched_all || return 1
  [ "$(lines "$scratch/bot.log")" = "$bot_mark" ] || { echo "  the bot ran:" $(ran_since "$bot_mark"); return 1; }
  reported 2 0
}
check "warm: after ninja -t clean, with build --remote, every device step hits the action cache, none on the bot; nvcc's objects" warm

# A build directory DIR of its own whose database holds NAME.cu alone,
# built with FASTCUDA_REMOTE and the variables given (obj/NAME.o; the log
# DIR.log beside it)
build_one_tu() {  # DIR NAME [VARIABLE=VALUE...]
  local dir=$scratch/$1 name=$2
  shift 2
  mkdir -p "$dir/obj"
  printf '[{"directory": "%s", "file": "%s/%s.cu", "output": "obj/%s.o", "command": "%s %s -c %s/%s.cu -o obj/%s.o"}]\n' \
    "$dir" "$project" "$name" "$name" "$NVCC" "${archs[*]}" "$project" "$name" "$name" > "$dir/compile_commands.json"
  env FASTCUDA_REMOTE="$remote" "$@" "$FASTCUDA" build --compdb "$dir/compile_commands.json" --out "$dir/graph" \
    -j 2 > "$dir.log" 2>&1 || { tail -n 5 "$dir.log"; return 1; }
}
# A TU whose module id cudafe++ makes anew in every run (its process id in
# it, as in every TU of CUB's device-wide algorithms), built in two build
# directories of the same source
module_id_case() {
  local bot_mark dir
  printf 'template <typename T> __global__ void k(T *x) { x[threadIdx.x] *= 2; }\n%s\n%s\n' \
    'template <typename T> void launch(T *x) { k<<<1, 32>>>(x); }' 'template void launch<float>(float *);' > "$project/c.cu"
  for dir in b1 b2; do
    [ "$dir" = b1 ] || bot_mark=$(lines "$scratch/bot.log")
    build_one_tu "$dir" c || return 1
  done
  [ "$(lines "$scratch/bot.log")" = "$bot_mark" ] || { echo "  the bot ran:" $(ran_since "$bot_mark"); return 1; }
  same_object "$scratch/b2/obj/c.o" "$scratch/b1/obj/c.o"
}
check "module id: a TU whose id nvcc makes anew in every run hits every remote step in a second build directory" \
  module_id_case

# The preprocessing and the host compile, cached here: a second build
# directory of the same sources runs no compiler; a header edited makes a
# third miss them and build nvcc's object of the edited source
cached_here() {
  local dir scale
  for scale in 3 4; do
    printf '#include "e.h"\n__global__ void scale(float *x) { x[threadIdx.x] *= SCALE; }\n' > "$project/e.cu"
    echo "#define SCALE $scale.0f" > "$project/e.h"
    "$NVCC" "${archs[@]}" -c "$project/e.cu" -o "$scratch/ref/e$scale.o" || return 1
  done
  echo "#define SCALE 3.0f" > "$project/e.h"
  for dir in e1 e2; do build_one_tu "$dir" e || return 1; done
  reported 1 0 "$scratch/e2/graph" && same_object "$scratch/e2/obj/e.o" "$scratch/ref/e3.o" || return 1
  echo "#define SCALE 4.0f" > "$project/e.h"
  build_one_tu e3 e && reported 0 1 "$scratch/e3/graph" && same_object "$scratch/e3/obj/e.o" "$scratch/ref/e4.o"
}
check "cached here: a second build directory hits every step, preprocessing and host compile too; a header edit misses them, nvcc's object" \
  cached_here

# Every device step run here has its result's store in the stats file
# since MARK (the proxy writes it after the step), with bytes sent
stores_counted() {  # MARK
  tail -n +"$(($1 + 1))" "$scratch/stats" | awk '$4 == "L" { ran[$NF]++ } $4 == "S" { stored[$NF]++; sent += $5 }
    END { for (name in ran) if (!stored[name]) exit 1; exit !(length(ran) && sent) }'
}
run_here() {
  local bot_mark dir local_mode stats_mark
  printf '__global__ void twice(float *x) { x[threadIdx.x] *= 2.5f; }\n' > "$project/d.cu"
  "$NVCC" "${archs[@]}" -c "$project/d.cu" -o "$scratch/ref/d.o" || return 1
  bot_mark=$(lines "$scratch/bot.log") stats_mark=$(lines "$scratch/stats")
  for dir in h1 h2; do
    local_mode=$([ "$dir" = h1 ] && echo always || echo never)
    build_one_tu "$dir" d FASTCUDA_REMOTE_LOCAL="$local_mode" || return 1
    [ "$(lines "$scratch/bot.log")" = "$bot_mark" ] || { echo "  $dir: the bot ran:" $(ran_since "$bot_mark"); return 1; }
    same_object "$scratch/$dir/obj/d.o" "$scratch/ref/d.o" || return 1
    [ "$dir" = h2 ] || wait_for 10 stores_counted "$stats_mark" ||
      { echo "  not every step run here has its store's line:"; tail -n +"$((stats_mark + 1))" "$scratch/stats"; return 1; }
  done
  "$FASTCUDA" report "$scratch/h1/graph" > "$scratch/report_h1.txt" &&
    grep -Eq '^  CICC +0 hit +1 miss, 1 of them run on idle local cores$' "$scratch/report_h1.txt" ||
    { echo "  fastcuda report of the first:"; sed -n '/^step cache/,/^$/p' "$scratch/report_h1.txt"; return 1; }
}
check "run here: misses run locally with FASTCUDA_REMOTE_LOCAL=always, none on the bot, each store's bytes in the stats; a second build directory hits them" \
  run_here

tls() {
  local plain=$remote
  remote=grpcs://localhost:$tls_port
  ninja -C "$project/graph" -t clean > /dev/null && build tls.log FASTCUDA_REMOTE_TLS_CA="$scratch/tls.crt" &&
    same_as_nvcc && launched_all && reported 2 0 || { tail -n 5 "$scratch/tls.log"; remote=$plain; return 1; }
  ninja -C "$project/graph" -t clean > /dev/null
  ! build tls_unknown.log FASTCUDA_REMOTE_FALLBACK=off || { echo "  the build trusted an unknown certificate"; remote=$plain; return 1; }
  remote=$plain
  grep -q "^fastcuda-remote: grpcs://localhost:$tls_port: .*UNAVAILABLE: .*" "$scratch/tls_unknown.log" ||
    { echo "  no client error:"; tail -n 5 "$scratch/tls_unknown.log"; return 1; }
  [ ! -e "$project/obj/a.o" ] && [ ! -e "$project/obj/b.o" ] || { echo "  an object is left"; return 1; }
  build tls_after.log && same_as_nvcc  # the objects back for the next case
}
if [ -n "$tls_cert" ]; then
  check "tls: through grpcs:// with the server's certificate every step hits; without it the build fails naming it" tls
else
  echo "SKIP tls: no openssl to make a certificate"
fi

clean_tu() { ninja -C "$project/graph" -t clean "$project/obj/$1.o" > /dev/null; }  # TU: its steps to run again
auth() {  # a's steps, then b's: each build runs 3 remote steps
  local start real_secret=$jwt_secret
  clean_tu a
  # A token of another secret, renewed in place as an expired one would be:
  # the proxy of the cases before reads it again
  jwt_secret=$scratch/other.secret
  head -c 32 /dev/urandom | base64 > "$jwt_secret" && jwt_token "$FASTCUDA_REMOTE_TOKEN_FILE"
  jwt_secret=$real_secret
  build auth_wrong.log && same_as_nvcc || { echo "  the build failed:"; tail -n 5 "$scratch/auth_wrong.log"; return 1; }
  [ "$(grep -c "^fastcuda-remote: $remote: authentication refused (UNAUTHENTICATED: .*); the token of FASTCUDA_REMOTE_TOKEN_FILE=$FASTCUDA_REMOTE_TOKEN_FILE; running the step locally" \
      "$scratch/auth_wrong.log")" = 1 ] ||
    { echo "  not one refusal line:"; grep fastcuda-remote "$scratch/auth_wrong.log" || tail -n 5 "$scratch/auth_wrong.log"; return 1; }
  clean_tu a
  start=$SECONDS
  ! build auth_none.log FASTCUDA_REMOTE_TOKEN_FILE= FASTCUDA_REMOTE_FALLBACK=off ||
    { echo "  the build succeeded with no token"; return 1; }
  [ $((SECONDS - start)) -le 10 ] || { echo "  the failing build took $((SECONDS - start)) s"; return 1; }
  grep -q "^fastcuda-remote: $remote: authentication refused (UNAUTHENTICATED: .*); no credentials sent (.*)$" \
    "$scratch/auth_none.log" || { echo "  no client error:"; tail -n 5 "$scratch/auth_none.log"; return 1; }
  [ ! -e "$project/obj/a.o" ] || { echo "  an object is left"; return 1; }
  jwt_token "$FASTCUDA_REMOTE_TOKEN_FILE"
  build auth_renewed.log && same_as_nvcc && reported 1 0 || { tail -n 5 "$scratch/auth_renewed.log"; return 1; }
  # The token as FASTCUDA_REMOTE_HEADER's header instead; b's cubin kept
  # whole, not a stub: the broken-cache case finds its blob by its bytes
  clean_tu b
  build auth_header.log FASTCUDA_REMOTE_TOKEN_FILE= FASTCUDA_REMOTE_FALLBACK=off FASTCUDA_KEEP_INTERMEDIATES=1 \
    FASTCUDA_REMOTE_HEADER="Authorization: Bearer $(cat "$FASTCUDA_REMOTE_TOKEN_FILE")" &&
    same_as_nvcc && reported 1 0 || { tail -n 5 "$scratch/auth_header.log"; return 1; }
}
check "auth: a token refused runs a's steps locally, one line naming it; none, fallback off, fails; renewed or as a header, all hit" \
  auth
jwt_token "$FASTCUDA_REMOTE_TOKEN_FILE"  # valid for the cases after, wherever auth stopped

cas_file() { local hash; hash=$(sha256sum "$1" | cut -d' ' -f1); echo "$scratch/cas/cas/objects/${hash:0:2}/${hash:2}"; }
work_file() { find "$project/graph" -name "$1" -not -name '.*' | head -n 1; }
broken_cache() {
  local ptx cubin bot_mark
  ptx=$(cas_file "$(work_file a.ptx)") cubin=$(cas_file "$(work_file b.sm_80.cubin)")
  [ -f "$ptx" ] && [ -f "$cubin" ] || { echo "  no CAS files $ptx $cubin"; return 1; }
  tr '\0-\377' '\1-\377\0' < "$ptx" > "$ptx.bad" && mv "$ptx.bad" "$ptx"  # same size, other bytes
  rm "$cubin"
  bot_mark=$(lines "$scratch/bot.log")
  ninja -C "$project/graph" -t clean > /dev/null && build broken.log && same_as_nvcc || { tail "$scratch/broken.log"; return 1; }
  grep -q 'digest mismatch' "$XDG_RUNTIME_DIR"/fastcuda-remote-*/*.log ||
    { echo "  the client did not see the corrupt PTX"; return 1; }
  tail -n +"$((bot_mark + 1))" "$scratch/bot.log" | grep -q '^ran ptxas b.sm_80.cubin$' ||
    { echo "  b's ptxas did not run again:" $(ran_since "$bot_mark"); return 1; }
}
check "broken cache: a corrupt PTX and a cubin gone from the CAS under action-cache entries run again; nvcc's objects" \
  broken_cache

down_at_start() {
  local start=$SECONDS closed_remote=grpc://127.0.0.1:$closed
  ninja -C "$project/graph" -t clean > /dev/null
  remote=$closed_remote build down.log || { remote=grpc://127.0.0.1:$port; echo "  the build failed:"; tail -n 5 "$scratch/down.log"; return 1; }
  same_as_nvcc || { remote=grpc://127.0.0.1:$port; return 1; }
  [ "$(grep -c "^fastcuda-remote: $closed_remote: .*; running the step locally" "$scratch/down.log")" = 1 ] ||
    { remote=grpc://127.0.0.1:$port; echo "  not one fallback line:"; grep fastcuda-remote "$scratch/down.log"; return 1; }
  ninja -C "$project/graph" -t clean > /dev/null
  start=$SECONDS
  ! remote=$closed_remote build down_off.log FASTCUDA_REMOTE_FALLBACK=off ||
    { remote=grpc://127.0.0.1:$port; echo "  the build succeeded with the fallback off"; return 1; }
  remote=grpc://127.0.0.1:$port
  [ $((SECONDS - start)) -le 30 ] || { echo "  the failing build took $((SECONDS - start)) s"; return 1; }
  grep -q "^fastcuda-remote: $closed_remote: cannot reach the server within 3 s (UNAVAILABLE: .*)$" "$scratch/down_off.log" ||
    { echo "  no client error:"; tail -n 5 "$scratch/down_off.log"; return 1; }
  [ ! -e "$project/obj/a.o" ] && [ ! -e "$project/obj/b.o" ] || { echo "  an object is left"; return 1; }
}
check "down at start: a closed port runs the steps locally with one line naming it; with the fallback off fails, no object" \
  down_at_start

started_outputs_absent() {  # LOG: no output (nor a client's temporary) of a device edge the build LOG started is there
  local desc output
  while read -r desc; do
    for output in $(awk -v desc="$desc" '$1 == "build" { line = $0 } $1 == "desc" && substr($0, index($0, "=") + 2) == desc {
                      sub(/^build /, "", line); sub(/: .*/, "", line); print line }' \
                      <(expanded_manifest "$project/graph/build.ninja")); do
      [ ! -e "$output" ] || { echo "  $desc left $output"; return 1; }
    done
  done < <(sed -n -E 's/^\[[0-9]+\/[0-9]+\] ((CUDAFE|CICC|PTXAS) .*a\.cu)$/\1/p' "$scratch/$1")
  [ -z "$(find "$project/graph" -name '.*.fastcuda-remote-*')" ] || { echo "  temporaries left"; return 1; }
}
holding_since() {  # MARK: a bot said it holds a lease after bot.out had MARK lines
  [ -n "$(tail -n +"$(($1 + 1))" "$scratch/bot.out" | grep '^bot: holding lease ')" ]
}
hold_next() {  # a new a.cu (nvcc's object for it made), a bot that holds the next step; sets out_mark
  stop_bot
  cp "$scratch/edits/a$1.cu" "$project/a.cu" && cp "$scratch/edits/a$1.o" "$scratch/ref/a.o" && rm -f "$project/obj/a.o"
  out_mark=$(lines "$scratch/bot.out")
  start_bot 1 --hold 600
}

timeout_case() {
  local start
  hold_next 3 || return 1
  start=$SECONDS
  ! build timeout.log FASTCUDA_REMOTE_TIMEOUT=3 FASTCUDA_REMOTE_FALLBACK=off ||
    { echo "  the build succeeded"; return 1; }
  [ $((SECONDS - start)) -le 30 ] || { echo "  the failing build took $((SECONDS - start)) s"; return 1; }
  grep -q "^fastcuda-remote: $remote: no result within FASTCUDA_REMOTE_TIMEOUT=3 s$" "$scratch/timeout.log" ||
    { echo "  no client error:"; tail -n 5 "$scratch/timeout.log"; return 1; }
  started_outputs_absent timeout.log
}
check "timeout: a step held past FASTCUDA_REMOTE_TIMEOUT fails the build (fallback off) naming it; no output of a's steps" \
  timeout_case

ctrl_c() {
  local start build_pid status=0
  hold_next 4 || return 1
  # As a terminal's Ctrl-C: SIGINT to the build's process group. (A script's
  # background job inherits SIGINT ignored: the group's leader takes it back.)
  "$py" -c 'import os, signal, sys; signal.signal(signal.SIGINT, signal.SIG_DFL); os.setsid(); os.execvp(sys.argv[1], sys.argv[1:])' \
    bash -c "$(declare -f build); $(printf '%q=%q ' FASTCUDA "$FASTCUDA" project "$project" scratch "$scratch" remote "$remote") build ctrl_c.log" &
  build_pid=$!
  wait_for 30 holding_since "$out_mark" || { echo "  no bot took a step"; kill -KILL -- -"$build_pid"; wait "$build_pid"; return 1; }
  start=$SECONDS
  kill -INT -- -"$build_pid"
  wait_for 15 gone "$build_pid" || { echo "  the build goes on after SIGINT"; kill -KILL -- -"$build_pid"; wait "$build_pid"; return 1; }
  wait "$build_pid" || status=$?
  [ "$status" != 0 ] || { echo "  the build succeeded"; return 1; }
  echo "  (the build stopped $((SECONDS - start)) s after SIGINT)"
  sleep 1  # a proxy that would still write something has had the time to
  started_outputs_absent ctrl_c.log
}
gone() { local state; state=$(ps -o stat= -p "$1") || return 0; [[ $state == Z* ]]; }
check "ctrl-c: the build stops at once, a's steps leave no output and no temporary" ctrl_c

worker_lost() {
  local start lost_at bot_mark build_pid status=0
  hold_next 5 || return 1
  bot_mark=$(lines "$scratch/bot.log") start=$SECONDS
  build worker_lost.log FASTCUDA_REMOTE_FALLBACK=off &
  build_pid=$!
  wait_for 30 holding_since "$out_mark" || { echo "  no bot took a step"; stop_build "$build_pid"; return 1; }
  stop_bot
  lost_at=$SECONDS
  start_bot || { stop_build "$build_pid"; return 1; }
  wait "$build_pid" || status=$?
  [ "$status" = 0 ] || { echo "  the build failed ($status):"; tail -n 5 "$scratch/worker_lost.log"; return 1; }
  [ $((SECONDS - start)) -le 60 ] || { echo "  the build took $((SECONDS - start)) s"; return 1; }
  echo "  (the build ended $((SECONDS - lost_at)) s after its bot was lost)"
  same_as_nvcc && ran_on_new_bot "$bot_mark" a.cudafe1.cpp a.ptx a.sm_80.cubin
}
ran_on_new_bot() {  # MARK OUTPUT...: the bot ran a step writing each OUTPUT after its log had MARK lines
  local mark=$1 output since
  shift
  for output in "$@"; do
    since=$(tail -n +"$((mark + 1))" "$scratch/bot.log") && grep -q " $output\( \|$\)" <<<"$since" ||
      { echo "  the new bot did not run the step writing $output"; return 1; }
  done
}
check "worker lost: a bot killed holding a step loses it to a new bot; the build succeeds (fallback off), nvcc's objects" \
  worker_lost

long_step() {
  local sessions_before bot_mark
  stop_bot
  cp "$scratch/edits/a7.cu" "$project/a.cu" && cp "$scratch/edits/a7.o" "$scratch/ref/a.o" && rm -f "$project/obj/a.o"
  start_bot 1 --busy 14 || return 1
  sessions_before=$(sessions) bot_mark=$(lines "$scratch/bot.log")
  build long_step.log FASTCUDA_REMOTE_FALLBACK=off FASTCUDA_REMOTE_TIMEOUT=40 ||
    { echo "  the build failed:"; tail -n 5 "$scratch/long_step.log"; tail -n 3 "$scratch/bot.out"; return 1; }
  same_as_nvcc || return 1
  [ "$(sessions)" = "$sessions_before" ] || { echo "  the bot lost its session:"; tail -n 3 "$scratch/bot.out"; return 1; }
  [ "$(tail -n +"$((bot_mark + 1))" "$scratch/bot.log" | grep -c '^ran cicc ')" = 1 ] ||
    { echo "  cicc ran other than once:"; tail -n +"$((bot_mark + 1))" "$scratch/bot.log"; return 1; }
}
check "long step: a step past the server's keepalive keeps its bot and session; the build succeeds (fallback off), nvcc's objects" \
  long_step

server_lost() {
  local build_pid status=0
  hold_next 6 || return 1
  build server_lost.log &
  build_pid=$!
  wait_for 30 holding_since "$out_mark" || { echo "  no bot took a step"; stop_build "$build_pid"; return 1; }
  stop_server
  wait "$build_pid" || status=$?
  [ "$status" = 0 ] || { echo "  the build failed ($status):"; tail -n 5 "$scratch/server_lost.log"; return 1; }
  same_as_nvcc || return 1
  [ "$(grep -c "^fastcuda-remote: $remote: .*; running the step locally" "$scratch/server_lost.log")" = 1 ] ||
    { echo "  not one fallback line:"; grep fastcuda-remote "$scratch/server_lost.log"; return 1; }
}
check "server lost: the server killed mid-build, the client's retries end and the steps run locally (one line); nvcc's objects" \
  server_lost

overhead() {  # the client's time per step outside the remote action and the transfers, for the record
  awk '$4 != "S" { print ($1 - $2 - $3) * 1000 }' "$scratch/stats" | sort -n |
    awk '{ v[NR] = $1 } END { if (NR) printf "  (client overhead per remote step over %d steps: median %.1f ms, max %.1f ms)\n", NR, v[int((NR + 1) / 2)], v[NR] }'
}
overhead
cleanup
finish

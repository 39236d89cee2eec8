#!/usr/bin/env bash
# Launchers against the real tools, on two TUs built for sm_80 and PTX-only
# compute_90 through `fastcuda build --compdb`:
#  ccache    FASTCUDA_HOST_LAUNCHER=ccache puts ccache on the host compiles
#            only; a second clean build hits the cache; dropping the
#            launcher reruns just the host compiles; a `ccache nvcc` database
#            entry maps onto the host compile too.
#  device    FASTCUDA_DEVICE_LAUNCHER (a logging wrapper) runs every cicc,
#            ptxas and fatbinary except ptxas's check of the PTX-only target,
#            with FASTCUDA_EARLY_HOST=on too.
#  distcc    distccd on loopback receives every host compile (DISTCC_FALLBACK=0:
#            nothing compiles locally behind its back; an unreachable server
#            fails the build); a second distccd in a network namespace of its
#            own, reached through distcc's ssh transport (a namespace has its
#            own loopback: TCP to it would need a veth pair and host network
#            setup, which the test does not do). Skipped, saying so, where
#            distcc cannot be installed or namespaces cannot be made.
#  CMake     CMAKE_CUDA_COMPILER_LAUNCHER=ccache with the FastCuda module runs
#            ccache on the graph's host compile.
# Every object's device code and symbols equal nvcc's.
#
# usage: launchers.sh FASTCUDA_BINARY [NVCC]
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/checks.sh" launchers "$@"
source_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)

daemons=()
stop_daemons() { for pid in "${daemons[@]}"; do kill "$pid" 2>/dev/null || true; done; }
trap stop_daemons EXIT

project=$scratch/project
mkdir -p "$project/obj" "$scratch/ref"
cat > "$project/a.cu" <<'C'
__global__ void ka(float *x) { x[threadIdx.x] *= 2.f; }
void launch_a(float *x) { ka<<<1, 32>>>(x); }
C
cat > "$project/b.cu" <<'C'
#include <cstdio>
__global__ void kb(int *x) { x[threadIdx.x] += 1; }
void launch_b(int *x) { kb<<<1, 32>>>(x); std::printf("b\n"); }
C
archs=(-gencode arch=compute_80,code=sm_80 -gencode arch=compute_90,code=compute_90)
tus=(a b)
write_db() {  # LAUNCHER-PREFIX (may be empty)
  local prefix=$1 first=1
  {
    echo "["
    for tu in "${tus[@]}"; do
      [[ $first -eq 1 ]] || echo ","
      first=0
      printf '{"directory": "%s", "file": "%s/%s.cu", "output": "obj/%s.o", "command": "%s%s %s -c %s.cu -o obj/%s.o"}' \
        "$project" "$project" "$tu" "$tu" "$prefix" "$NVCC" "${archs[*]}" "$tu" "$tu"
    done
    echo "]"
  } > "$project/compile_commands.json"
}
for tu in "${tus[@]}"; do (cd "$project" && "$NVCC" "${archs[@]}" -c "$tu.cu" -o "$scratch/ref/$tu.o"); done

symbols() { nm "$1" | awk '{ print $(NF - 1), $NF }'; }
same_as_nvcc() {  # every object: nvcc's device code and symbols
  local tu
  for tu in "${tus[@]}"; do
    objcopy -O binary --only-section=.nv_fatbin "$project/obj/$tu.o" "$scratch/x.fb" &&
      objcopy -O binary --only-section=.nv_fatbin "$scratch/ref/$tu.o" "$scratch/y.fb" &&
      [ -s "$scratch/x.fb" ] && cmp -s "$scratch/x.fb" "$scratch/y.fb" &&
      [ -n "$(symbols "$scratch/ref/$tu.o")" ] &&
      [ "$(symbols "$project/obj/$tu.o")" = "$(symbols "$scratch/ref/$tu.o")" ] || return 1
  done
}
graph=$scratch/graph
build() {  # LOG: an incremental build
  "$FASTCUDA" build --compdb "$project/compile_commands.json" --out "$graph" -j 2 > "$scratch/$1" 2>&1
}
clean_build() {  # LOG
  rm -rf "$graph" "$project"/obj/*.o
  build "$1"
}
# The first word of the command of each edge of rule KIND, one line per edge.
launched() {  # KIND [GRAPH-DIR]
  awk -v rule="$1" '$1 == "build" && $0 ~ ": " rule " " { edge = 1; next }
                    edge && $1 == "argv" { print $4; edge = 0 }' "${2:-$graph}/build.ninja"
}
only_host_compiles_run() {  # LAUNCHER [GRAPH-DIR TUS]: every host compile through it, nothing else
  local dir=${2:-$graph} kind
  [ "$(launched HOST_CC "$dir" | sort | uniq -c | awk '{ print $1, $2 }')" = "${3:-${#tus[@]}} $1" ] || return 1
  for kind in CPP_HOST CPP_DEVICE CUDAFE CICC PTXAS FATBINARY; do
    ! grep -qx -- "$1" <<<"$(launched "$kind" "$dir")" || return 1
  done
}
count() {  # PATTERN FILE
  grep -c -- "$1" "$2" || true
}

# --- ccache ------------------------------------------------------------------
export CCACHE_DIR=$scratch/ccache
ccache_stat() { ccache --print-stats | awk -v key="$1" '$1 == key { print $2 }'; }
ccache_hits() { echo $(($(ccache_stat direct_cache_hit) + $(ccache_stat preprocessed_cache_hit))); }
ccache_calls() { echo $(($(ccache_hits) + $(ccache_stat cache_miss))); }
write_db ""
FASTCUDA_HOST_LAUNCHER=ccache clean_build ccache1.log
check "ccache: the host compiles, and nothing else, run through ccache" only_host_compiles_run ccache
check "ccache: first build misses, objects equal nvcc's" \
  eval '[ "$(ccache_stat cache_miss)" = 2 ] && [ "$(ccache_hits)" = 0 ] && same_as_nvcc'
FASTCUDA_HOST_LAUNCHER=ccache clean_build ccache2.log
check "ccache: a second clean build hits the cache for every TU, objects equal nvcc's" \
  eval '[ "$(ccache_hits)" = 2 ] && [ "$(ccache_stat cache_miss)" = 2 ] && same_as_nvcc'
build plain.log
reruns_host_compiles_only() {
  grep -q "Regenerating\|CUDA TUs" "$scratch/plain.log" && [ "$(count HOST_CC "$scratch/plain.log")" = 2 ] &&
    [ "$(count CICC "$scratch/plain.log")" = 0 ] && [ -z "$(launched HOST_CC | grep -x ccache)" ] && same_as_nvcc
}
check "dropping the launcher regenerates and reruns exactly the host compiles" reruns_host_compiles_only
sleep 1  # a coarse-mtime file system must see the database as newer than the manifest
write_db "ccache "
build database_launcher.log
check "a 'ccache nvcc' database entry maps ccache onto the host compile (cache hits)" \
  eval 'only_host_compiles_run ccache && [ "$(ccache_hits)" = 4 ] && same_as_nvcc'

# --- a device launcher ---------------------------------------------------------
cat > "$scratch/device-runner" <<EOF
#!/bin/sh
# Stands in for a remote-execution client: notes the tool, runs it here.
basename "\$1" >> "$scratch/device-runner.log"
exec "\$@"
EOF
chmod +x "$scratch/device-runner"
write_db ""
FASTCUDA_DEVICE_LAUNCHER=$scratch/device-runner build device.log
device_runs() {  # the tools the runner ran, counted: "N tool," each
  sort "$scratch/device-runner.log" | uniq -c | awk '{ printf "%s %s,", $1, $2 }'
}
device_steps_run_through_it() {
  # 2 TUs: cicc for each target, ptxas for sm_80 only (compute_90's check
  # writes nothing), fatbinary for each image (sm_80's SASS, compute_90's
  # PTX); the stitch that joins them runs here. sm_80's PTX, which ptxas
  # alone reads, was a stub that cicc's new run left (the same bytes): ptxas,
  # whose command changed too, gets the body from cicc's command again.
  [ "$(device_runs)" = "6 cicc,4 fatbinary,2 ptxas," ] && ! grep -q device-runner <<<"$(launched HOST_CC)" && same_as_nvcc
}
check "FASTCUDA_DEVICE_LAUNCHER runs cicc, ptxas and fatbinary, objects equal nvcc's" device_steps_run_through_it
rm "$scratch/device-runner.log"
FASTCUDA_EARLY_HOST=on FASTCUDA_DEVICE_LAUNCHER=$scratch/device-runner clean_build device_early.log
device_steps_run_through_it_early() {
  # FASTCUDA_EARLY_HOST: each fatbinary runs twice (the layout, then the bytes).
  [ "$(device_runs)" = "4 cicc,4 fatbinary,2 ptxas," ] && [ "$(count EMBED_FATBIN "$scratch/device_early.log")" = 2 ] &&
    same_as_nvcc
}
check "FASTCUDA_DEVICE_LAUNCHER with FASTCUDA_EARLY_HOST: fatbinary through it too, objects equal nvcc's" \
  device_steps_run_through_it_early
unfound_sccache_named() {  # an sccache not found tells no version, which cicc and ptxas need: one line says so
  FASTCUDA_DEVICE_LAUNCHER=$scratch/no-such/sccache clean_build unfound.log &&
    [ "$(grep -c "no-such/sccache --version\` told no version" "$scratch/unfound.log")" = 1 ] && same_as_nvcc
}
check "a device launcher sccache not found: its steps run without it, and one line says so" unfound_sccache_named

# --- distcc ------------------------------------------------------------------
have_distcc() { command -v distcc >/dev/null && command -v distccd >/dev/null; }
if ! have_distcc && [ "$(id -u)" -eq 0 ] && command -v apt-get >/dev/null; then
  echo "installing distcc"
  { DEBIAN_FRONTEND=noninteractive apt-get install -y -qq distcc ||
      { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq distcc; }; } > "$scratch/apt.log" 2>&1 || true
fi
start_distccd() {  # LOG: distccd on a free loopback port; sets port
  local try i
  for try in 1 2 3 4 5; do
    port=$((20000 + RANDOM % 20000))
    distccd --no-detach --daemon --listen 127.0.0.1 --port "$port" --allow 127.0.0.1 --jobs 2 \
      --log-stderr --log-level info 2> "$1" &
    daemons+=($!)
    for i in $(seq 50); do
      grep -q "listening on 127.0.0.1:$port" "$1" && return 0
      kill -0 "${daemons[-1]}" 2>/dev/null || break
      sleep 0.1
    done
    kill "${daemons[-1]}" 2>/dev/null || true
  done
  return 1
}
jobs_received() {  # LOG: compile jobs a distccd log shows done
  count "COMPILE_OK" "$1"
}
export DISTCC_DIR=$scratch/distcc DISTCC_FALLBACK=0 DISTCC_SKIP_LOCAL_RETRY=1
mkdir -p "$DISTCC_DIR"
if ! have_distcc; then
  echo "SKIP distcc: the distcc package is not installed and could not be installed (see $scratch/apt.log)"
elif ! start_distccd "$scratch/distccd.log"; then
  check "distcc: distccd listens on a loopback port" false
else
  distributes_to_loopback() {
    DISTCC_HOSTS="127.0.0.1:$port/2" FASTCUDA_HOST_LAUNCHER=distcc clean_build distcc.log &&
      only_host_compiles_run distcc && [ "$(jobs_received "$scratch/distccd.log")" = 2 ] && same_as_nvcc
  }
  check "distcc: distccd on loopback compiled every host compile, objects equal nvcc's" \
    distributes_to_loopback
  unreachable_server_fails() {
    ! DISTCC_HOSTS="127.0.0.1:1" FASTCUDA_HOST_LAUNCHER=distcc clean_build distcc_down.log &&
      [ ! -e "$project/obj/a.o" ] && [ ! -e "$project/obj/b.o" ]
  }
  check "distcc: an unreachable server fails the build, no object left (no silent local fallback)" \
    unreachable_server_fails

  if unshare -n true 2>/dev/null && command -v nsenter >/dev/null; then
    unshare -n sleep 600 &
    namespace=$!
    daemons+=("$namespace")
    sleep 0.2
    # distcc's ssh transport with nsenter for ssh: HOST and its command are ignored.
    cat > "$scratch/ssh-into-namespace" <<EOF
#!/bin/sh
exec nsenter --net=/proc/$namespace/ns/net -- sh -c 'exec distccd --inetd --log-stderr --log-level info 2>> "$scratch/namespace-distccd.log"'
EOF
    chmod +x "$scratch/ssh-into-namespace"
    distributes_to_namespace() {
      [ "$(readlink "/proc/$namespace/ns/net")" != "$(readlink /proc/self/ns/net)" ] &&
        DISTCC_SSH=$scratch/ssh-into-namespace DISTCC_HOSTS="@fastcuda-namespace/2" FASTCUDA_HOST_LAUNCHER=distcc \
          clean_build distcc_namespace.log &&
        [ "$(jobs_received "$scratch/namespace-distccd.log")" = 2 ] && same_as_nvcc
    }
    check "distcc: a distccd in its own network namespace compiled every host compile, objects equal nvcc's" \
      distributes_to_namespace
  else
    echo "SKIP distcc in a network namespace: unshare -n or nsenter is not available or not permitted here"
  fi
fi

# --- CMake -------------------------------------------------------------------
cmake_project=$scratch/cmake
mkdir -p "$cmake_project"
cp "$project/a.cu" "$cmake_project/"
cat > "$cmake_project/CMakeLists.txt" <<'CMAKE'
cmake_minimum_required(VERSION 3.25)
project(launched CUDA)
add_library(launched STATIC a.cu)
CMAKE
cmake_maps_the_launcher() {
  local calls
  cmake -S "$cmake_project" -B "$cmake_project/build" -G Ninja -DCMAKE_CUDA_COMPILER="$NVCC" \
    -DCMAKE_CUDA_ARCHITECTURES=80-real -DCMAKE_CUDA_COMPILER_LAUNCHER=ccache \
    -DCMAKE_PROJECT_INCLUDE="$source_dir/cmake/FastCuda.cmake" -DFASTCUDA_EXECUTABLE="$FASTCUDA" \
    > "$scratch/cmake-configure.log" 2>&1 || return 1
  calls=$(ccache_calls)
  cmake --build "$cmake_project/build" > "$scratch/cmake-build.log" 2>&1 &&
    only_host_compiles_run ccache "$cmake_project/build/fastcuda" 1 && [ "$(ccache_calls)" -gt "$calls" ] &&
    [ -z "$(find "$cmake_project/build" -name .fastcuda -type d)" ]  # the graph built the object
}
if command -v cmake >/dev/null; then
  check "CMake: CMAKE_CUDA_COMPILER_LAUNCHER=ccache runs the graph's host compile through ccache" \
    cmake_maps_the_launcher
else
  echo "SKIP CMake: cmake not found"
fi

finish

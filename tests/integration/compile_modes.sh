#!/usr/bin/env bash
# FASTCUDA_MODULE_ID=own and FASTCUDA_SPLIT_COMPILE against real nvcc.
# own: the id FastCuda writes is the one both sides use (the names the host
# object registers for anonymous-namespace device variables are the ones in
# its PTX), two TUs of one basename get different ids and device-link into
# one program, and cicc no longer waits for cudafe++. split: the PTX is
# nvcc's byte for byte, the cubins record the thread count, host symbols
# are nvcc's; auto picks threads at run time. A bad value is an error.
#
# usage: compile_modes.sh FASTCUDA_BINARY [NVCC]
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/checks.sh" compile_modes "$@"
cd "$scratch"
mkdir -p a b
cat > anon.cu <<'C'
namespace {
__device__ int counter;
__global__ void bump() { atomicAdd(&counter, 1); }
}
int run() {
  bump<<<1, 32>>>();
  int value = 0;
  cudaMemcpyFromSymbol(&value, counter, sizeof value);
  return value;
}
C
cat > a/k.cu <<'C'
__device__ float scale(float x) { return 3.f * x; }
C
cat > b/k.cu <<'C'
extern __device__ float scale(float x);
__global__ void use(float *x) { x[threadIdx.x] = scale(x[threadIdx.x]); }
void launch(float *x) { use<<<1, 32>>>(x); }
int main() { return 0; }
C
archs=(-gencode arch=compute_80,code=sm_80 -gencode arch=compute_90,code=sm_90)
work_file() { find "$1" -name "$2" -print -quit; }  # DIR NAME
registered_names() { strings -a "$1" | grep -o '_ZN[0-9]*_INTERNAL_[A-Za-z0-9_]*' | sort -u; }

# --- own module id, through the launcher (the PTX kept whole, to be read)
FASTCUDA_KEEP_INTERMEDIATES=1 FASTCUDA_MODULE_ID=own "$FASTCUDA" "$NVCC" "${archs[@]}" -c anon.cu -o anon.o
id=$(cat "$(work_file .fastcuda/anon.o anon.module_id)")
check "own: the id has nvcc's shape" grep -Eq '^_[0-9a-f]{16}_7_anon_cu$' <<< "$id"
names=$(registered_names anon.o)
check "own: the host object registers names made from FastCuda's id" grep -q "_INTERNAL${id}" <<< "$names"
ptx_has_names() {
  local ptx name
  for ptx in $(find .fastcuda/anon.o -name '*.ptx'); do
    [ -s "$ptx" ] || return 1
    for name in $names; do grep -q "$name" "$ptx" || return 1; done
  done
}
check "own: every PTX defines the names the host object registers" ptx_has_names
# (nvcc's PTX kept: the split's PTX below is compared with it)
mkdir nvcc-kept
"$NVCC" "${archs[@]}" -c anon.cu -o anon_nvcc.o --keep --keep-dir nvcc-kept
nvcc_names=$(registered_names anon_nvcc.o)
check "own: nvcc registers other names (its own id)" test -n "$nvcc_names" -a "$names" != "$nvcc_names"

# --- own module id, through the global graph: same basename, rdc, device link
# (one architecture: the ids are per TU)
one_arch=(-gencode arch=compute_80,code=sm_80)
rdc_compile_database "${one_arch[@]}"
FASTCUDA_MODULE_ID=own "$FASTCUDA" build --compdb compile_commands.json --out graph >/dev/null
ids=$(for file in $(find graph -name '*.module_id'); do cat "$file"; echo; done | sort -u | wc -l)
check "own: two TUs named k.cu get two ids" test "$ids" -eq 2
check "own: the objects device-link into one program" \
  bash -c "'$NVCC' ${one_arch[*]} -dlink a/k.o b/k.o -o dlink.o && g++ a/k.o b/k.o dlink.o -o program -L'$(dirname "$NVCC")/../lib64' -lcudart"
check "own: a MODULE_ID edge writes each id" test "$(grep -Ec '^build [^:]*\.module_id: MODULE_ID' graph/build.ninja)" -eq 2
check "own: cudafe++ writes no id, so cicc need not wait for it" \
  bash -c "! grep -Eq '^build [^:]*\.module_id[^:]*: CUDAFE' graph/build.ninja"
check "own: cudafe++ reads the id instead of making it" bash -c "! grep -q -- --gen_module_id_file graph/build.ninja"

# --- split compilation (of anon.cu: nvcc's object above is the reference)
FASTCUDA_SPLIT_COMPILE=2 "$FASTCUDA" gen --out fixed -- "$NVCC" "${archs[@]}" -c anon.cu -o fixed.o >/dev/null
FASTCUDA_SPLIT_COMPILE=auto "$FASTCUDA" gen --out auto -- "$NVCC" "${archs[@]}" -c anon.cu -o auto.o >/dev/null
for dir in fixed auto; do FASTCUDA_KEEP_INTERMEDIATES=1 ninja -C $dir > /dev/null; done  # PTX and cubins to read
same_ptx() {  # DIR: its PTX files equal those nvcc kept (one an architecture)
  local ptx kept=(nvcc-kept/*.ptx)
  [ "${#kept[@]}" -eq 2 ] || return 1
  for ptx in "${kept[@]}"; do
    [ -s "$ptx" ] && cmp -s "$ptx" "$(work_file "$1" "$(basename "$ptx")")" || return 1
  done
}
check "split 2: the PTX is nvcc's, byte for byte" same_ptx fixed
check "split 2: each cubin records ptxas's two threads" \
  test "$(grep -la -- '-split-compile 2' $(find fixed -name '*.cubin') | wc -l)" -eq 2
check "split 2: host symbols are nvcc's" cmp -s <(nm anon_nvcc.o) <(nm fixed.o)
check "split auto: the wrapper picks the threads of 2 cicc and 2 ptxas, 2 chains" \
  test "$(grep -c -- '--split-auto 2' auto/build.ninja)" -eq 4
check "split auto: the PTX is nvcc's" same_ptx auto
alone_ptxas_threads() {  # a one-chain TU; rebuilds its cubin, ptxas the build's only job under ninja -j 4
  local cubin
  FASTCUDA_SPLIT_COMPILE=auto "$FASTCUDA" gen --out alone -- "$NVCC" -arch=sm_80 -c anon.cu -o alone.o >/dev/null &&
    ninja -C alone >/dev/null || return 1
  cubin="$(find alone -name '*.cubin')"
  # Whole bodies: fatbinary, its one reader, would leave the cubin a stub.
  rm "$cubin" && FASTCUDA_KEEP_INTERMEDIATES=1 ninja -C alone -j 4 >/dev/null || return 1
  grep -ao -- '-split-compile [0-9]*' "$cubin" || echo none
}
slots=$(( $(nproc) < 4 ? $(nproc) : 4 ))  # under ninja -j 4
alone_expected="-split-compile $slots"
[ "$slots" -gt 1 ] || alone_expected=none
check "split auto: a ptxas running alone takes the build's slots (ninja -j 4, $(nproc) cores)" \
  test "$(alone_ptxas_threads)" = "$alone_expected"
check "split auto: host symbols are nvcc's" cmp -s <(nm anon_nvcc.o) <(nm auto.o)
# A split step starts while a job that does not split runs: it shares the
# slots with no one, unless the two fill them (a full build gets no threads).
mkdir -p beside
cat > beside/build.ninja <<NINJA
rule run
  command = \$command
build long: run
  command = sleep 2 && touch long
build quick: run
  command = touch quick
build split: run || quick
  command = "$FASTCUDA" step --split-auto 1 split -- sh -c 'echo "\$\$@" > split' sh
NINJA
threads_beside() { ninja -C beside -j 4 >/dev/null && cat beside/split; }
beside_expected="-split-compile $slots"
[ "$slots" -gt 2 ] || beside_expected=""
check "split auto: beside a job that does not split, a split step takes the slots ($(nproc) cores, -j 4)" \
  test "$(threads_beside)" = "$beside_expected"
bad_value() {
  ! FASTCUDA_SPLIT_COMPILE=lots "$FASTCUDA" gen --out bad -- "$NVCC" -c anon.cu -o bad.o 2> bad.err &&
    grep -q "FASTCUDA_SPLIT_COMPILE must be off, auto or a thread count, not lots" bad.err
}
check "a bad FASTCUDA_SPLIT_COMPILE is an error that says so" bad_value
finish

#!/usr/bin/env bash
# Flag matrix: for each case, runs `NVCC ARGS...` and `fastcuda NVCC ARGS...`
# into two separate directories and compares what they produce (fatbin
# section bytes, defined host symbols, -ptx/-cubin/-fatbin bytes, depfile
# sets, diagnostics, exit codes), plus one `fastcuda gen` case and one case
# of parallel launcher invocations in one directory.
#
# FastCuda is given NVCC through a logging shim (a script that execs NVCC), so
# each case also checks that FastCuda split the call (it ran only
# `nvcc --dryrun`) or, for the fallback modes, that it ran nvcc itself.
#
# CI's time is short (2 cores; an nvcc compile costs 2 CPU s, and FastCuda's
# the same again): options that FastCuda only hands on to the tools (the
# dryrun carries them) share a case, and cases with the same nvcc command
# share nvcc's side.
#
# usage: flag_matrix.sh FASTCUDA_BINARY [NVCC]
# env:   FASTCUDA_TEST_SCRATCH  where the scratch directory goes (default:
#                               $PWD; under the build tree, where CTest runs
#                               us, so that the gen case can check that no
#                               /tmp path leaks into build.ninja)
#        FASTCUDA_TEST_KEEP=1   keep the scratch directory even on success
#        FASTCUDA_TEST_ONLY=RE  run only the cases whose name matches RE
#        FASTCUDA_TEST_EARLY_HOST_AGAIN=RE  run each case whose name matches
#                               RE once more (as NAME-early_host) with
#                               FASTCUDA_EARLY_HOST=on, FastCuda's side only
#
# Each case prints `PASS name` or `FAIL name` (with details); the last line
# is `N passed, M failed`; the exit status is non-zero if any case failed.
set -euo pipefail

source "$(dirname "${BASH_SOURCE[0]}")/checks.sh" flag_matrix "$@"
# Errexit stops the script outside a case (a setup step, a broken helper):
# say where what it left is.
trap 'echo "flag_matrix: aborted (exit code $?); scratch kept: $scratch" >&2' EXIT

for tool in "$NVCC" objcopy nm ninja cmp diff awk sed sort; do
  if ! command -v "$tool" >/dev/null 2>&1; then
    echo "flag_matrix: missing tool: $tool" >&2
    exit 2
  fi
done

# FastCuda gets NVCC through a transparent shim that logs each call, so that
# the test knows whether FastCuda split a call (it then runs only
# `nvcc --dryrun ...`) or ran nvcc itself.
mkdir -p "$scratch/bin"
REAL_NVCC=$NVCC
if [[ $REAL_NVCC != */* ]]; then REAL_NVCC=$(command -v "$REAL_NVCC"); fi
cat >"$scratch/bin/nvcc" <<EOF
#!/usr/bin/env bash
if [[ -n \${FASTCUDA_TEST_NVCC_LOG:-} ]]; then printf '%s\\n' "\$*" >>"\$FASTCUDA_TEST_NVCC_LOG"; fi
exec $(printf %q "$REAL_NVCC") "\$@"
EOF
chmod +x "$scratch/bin/nvcc"
NVCC_SHIM=$scratch/bin/nvcc

# ---------------------------------------------------------------------------
# Test sources.
mkdir -p "$scratch/src/a" "$scratch/src/b" "$scratch/src/dir with spaces" "$scratch/inc" "$scratch/sysinc"

cat >"$scratch/src/kernel.cu" <<'EOF'
#include <cstdio>
#include <cuda_runtime.h>

__global__ void scale(float* x, float a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] = a * x[i] + sinf(x[i]);
}

template <typename T>
__global__ void fill(T* x, T v, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] = v;
}

namespace {
__global__ void anonymous_kernel(int* p) { *p = 42; }
}

static __device__ int device_counter;

#ifdef APPENDED
__global__ void appended_kernel(int* p) { *p = APPENDED_VALUE; }
#endif

int run_kernels(float* d, int n) {
  scale<<<(n + 255) / 256, 256>>>(d, 2.0f, n);
  fill<float><<<(n + 255) / 256, 256>>>(d, 1.0f, n);
  fill<int><<<1, 32>>>(reinterpret_cast<int*>(d), 7, n);
  anonymous_kernel<<<1, 1>>>(reinterpret_cast<int*>(d));
#ifdef APPENDED
  appended_kernel<<<1, 1>>>(reinterpret_cast<int*>(d));
#endif
  int counter = 0;
  cudaMemcpyFromSymbol(&counter, device_counter, sizeof counter);
  std::printf("launched %d\n", counter);
  return cudaGetLastError() == cudaSuccess ? 0 : 1;
}
EOF

# A header only the device passes see.
cat >"$scratch/inc/dev_only.h" <<'EOF'
#pragma once
__device__ inline float device_only_twice(float x) { return 2.0f * x; }
EOF
cat >"$scratch/inc/common.h" <<'EOF'
#pragma once
#define COMMON_SCALE 3
EOF
cat >"$scratch/sysinc/sys_header.h" <<'EOF'
#pragma once
#define SYS_OFFSET 5
EOF
cat >"$scratch/src/devhdr.cu" <<'EOF'
#include "common.h"
#include <sys_header.h>
#ifdef __CUDA_ARCH__
#include "dev_only.h"
#endif

__global__ void use_device_header(float* x) {
#ifdef __CUDA_ARCH__
  x[threadIdx.x] = device_only_twice(x[threadIdx.x]) * COMMON_SCALE + SYS_OFFSET;
#endif
}

void launch_devhdr(float* x) { use_device_header<<<1, 32>>>(x); }
EOF

# A header only the sm_90 device pass sees.
cat >"$scratch/inc/sm90_only.h" <<'EOF'
#pragma once
__device__ inline float sm90_only_thrice(float x) { return 3.0f * x; }
EOF
cat >"$scratch/src/archhdr.cu" <<'EOF'
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
#include "sm90_only.h"
#endif
__global__ void use_arch_header(float* x) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  x[threadIdx.x] = sm90_only_thrice(x[threadIdx.x]);
#endif
}
void launch_archhdr(float* x) { use_arch_header<<<1, 32>>>(x); }
EOF

# -D / -I / -isystem.
cat >"$scratch/src/defs.cu" <<'EOF'
#include "common.h"
#include <sys_header.h>
#ifndef FROM_COMMAND_LINE
#error "FROM_COMMAND_LINE is not defined"
#endif
#define CONCAT2(a, b) a##b
#define CONCAT(a, b) CONCAT2(a, b)
__global__ void CONCAT(kernel_, FROM_COMMAND_LINE)(int* p) { *p = COMMON_SCALE + SYS_OFFSET; }
void CONCAT(launch_, FROM_COMMAND_LINE)(int* p) { CONCAT(kernel_, FROM_COMMAND_LINE)<<<1, 1>>>(p); }
EOF

# Relocatable device code: a device function defined in one file, used in another.
cat >"$scratch/src/rdc_a.cu" <<'EOF'
extern __device__ float shared_device_function(float x);
extern __device__ int shared_device_variable;
__global__ void rdc_user(float* x) {
  x[threadIdx.x] = shared_device_function(x[threadIdx.x]) + shared_device_variable;
}
void launch_rdc_user(float* x) { rdc_user<<<1, 32>>>(x); }
EOF
cat >"$scratch/src/rdc_b.cu" <<'EOF'
__device__ int shared_device_variable = 3;
__device__ float shared_device_function(float x) { return x * x + 1.0f; }
__global__ void rdc_provider(float* x) { x[0] = shared_device_function(x[0]); }
void launch_rdc_provider(float* x) { rdc_provider<<<1, 1>>>(x); }
EOF

# A compile error (in device code, found by the front end).
cat >"$scratch/src/error.cu" <<'EOF'
__global__ void broken(int* p) {
  *p = this_name_is_not_declared + 1;
}
void launch_broken(int* p) { broken<<<1, 1>>>(p); }
EOF

# Errors found later: by the host assembler, by ptxas.
cat >"$scratch/src/host_error.cu" <<'EOF'
__global__ void fine_kernel(int* p) { *p = 1; }
void host_asm_error() { asm volatile("this_is_not_an_x86_instruction"); }
void launch_fine(int* p) { fine_kernel<<<1, 1>>>(p); }
EOF
cat >"$scratch/src/ptxas_error.cu" <<'EOF'
__global__ void too_much_shared(int* p) {
  __shared__ volatile char big[200000];
  big[threadIdx.x] = 1;
  *p = big[p[1]];
}
void launch_shared(int* p) { too_much_shared<<<1, 1>>>(p); }
EOF

# Warnings from the preprocessors and the front ends.
cat >"$scratch/src/warnings.cu" <<'EOF'
#warning "a preprocessor warning"
__global__ void warn_kernel(int* p) { int unused_in_kernel = 3; *p = 1; }
int host_warn(int a) { int unused_in_host; if (a = 2) return 1; return 0; }
void launch_warn(int* p) { warn_kernel<<<1, 1>>>(p); }
EOF

# C++17 / C++20 features.
cat >"$scratch/src/modern.cu" <<'EOF'
#include <type_traits>
template <typename T>
__global__ void modern_kernel(T* p) {
  if constexpr (std::is_floating_point_v<T>) {
    *p = T(1.5);
  } else {
    *p = T(1);
  }
}
#if __cplusplus >= 202002L
template <typename T>
concept Small = sizeof(T) <= 4;
template <Small T>
__global__ void cxx20_kernel(T* p) { *p = T{}; }
void launch_cxx20(int* p) { cxx20_kernel<<<1, 1>>>(p); }
#endif
void launch_modern(float* f, int* i) {
  modern_kernel<<<1, 1>>>(f);
  modern_kernel<<<1, 1>>>(i);
}
EOF

# CUDA code in a .cpp file (for -x cu).
cat >"$scratch/src/plain.cpp" <<'EOF'
__global__ void kernel_in_cpp_file(int* p) { *p = 1; }
void launch_from_cpp(int* p) { kernel_in_cpp_file<<<1, 1>>>(p); }
EOF

# Host-side strict-aliasing and PIC-sensitive code.
cat >"$scratch/src/hostside.cu" <<'EOF'
static int host_global = 1;
int* host_global_address() { return &host_global; }
float type_pun(int i) { return *reinterpret_cast<float*>(&i); }
__global__ void hostside_kernel(float* p, float v) { p[threadIdx.x] = v; }
void launch_hostside(float* p) { hostside_kernel<<<1, 32>>>(p, type_pun(1)); }
EOF

# Same basename in two directories.
cat >"$scratch/src/a/same.cu" <<'EOF'
__global__ void same_in_a(int* p) { *p = 'a'; }
void launch_same_a(int* p) { same_in_a<<<1, 1>>>(p); }
EOF
cat >"$scratch/src/b/same.cu" <<'EOF'
__global__ void same_in_b(int* p) { *p = 'b'; }
void launch_same_b(int* p) { same_in_b<<<1, 1>>>(p); }
EOF

cat >"$scratch/src/dir with spaces/my kernel.cu" <<'EOF'
#include "common.h"
__global__ void kernel_with_spaces(int* p) { *p = COMMON_SCALE; }
void launch_with_spaces(int* p) { kernel_with_spaces<<<1, 1>>>(p); }
EOF

# ---------------------------------------------------------------------------
# Helpers. Case directories are $scratch/cases/NAME/{nvcc,fc}, and what the tools
# printed goes to $scratch/cases/NAME/{nvcc,fc}.{stdout,stderr,rc}. Both sides run
# in the same directory $scratch/cases/NAME/w (see enter_side) with the same
# relative paths, so that everything the compilers record about paths (line
# info records the compilation directory) is the same on both sides.
SRC=../../../src
INC=../../../inc
SYSINC=../../../sysinc
ARCH=-arch=sm_80

C=""  # the current case's directory
CASE_ERRORS=0

problem() {
  echo "    $*"
  CASE_ERRORS=$((CASE_ERRORS + 1))
}

# Something worth knowing that is not a failure: printed after PASS too.
note() {
  echo "    note: $*"
  echo "note: $*" >>"$C/notes"
}

# Sets up the current case's directories.
case_dirs() {
  C=$scratch/cases/$1
  mkdir -p "$C/nvcc" "$C/fc"
}

# run_side SIDE ARGS...: runs `NVCC ARGS` (SIDE nvcc) or `fastcuda NVCC ARGS`
# (SIDE fc) in $C/SIDE; records SIDE.stdout, SIDE.stderr and SIDE.rc in $C.
run_side() {
  local side=$1
  shift
  local rc=0
  # A case run again for FASTCUDA_EARLY_HOST: nvcc never reads the variable,
  # and its side is the first run's (see run_case).
  if [[ $side == nvcc && -n ${NVCC_SIDE_OF:-} ]] && share_nvcc_side "$NVCC_SIDE_OF" any; then return; fi
  enter_side "$side"
  if [[ $side == nvcc ]]; then
    (cd "$C/w" && exec "$NVCC" "$@") >"$C/nvcc.stdout" 2>"$C/nvcc.stderr" || rc=$?
  else
    (cd "$C/w" && FASTCUDA_VERBOSE=1 FASTCUDA_TEST_NVCC_LOG="$C/fc.nvcc-calls" \
      exec "$FASTCUDA" "$NVCC_SHIM" "$@") >"$C/fc.stdout" 2>"$C/fc.stderr" || rc=$?
  fi
  leave_side "$side"
  echo "$rc" >"$C/$side.rc"
}

# Both sides run in the same absolute directory $C/w (debug and line info
# record the compilation directory): enter_side SIDE moves $C/SIDE there,
# leave_side SIDE moves it back.
enter_side() {
  mv "$C/$1" "$C/w"
}
leave_side() {
  mv "$C/w" "$C/$1"
}

run_pair() {
  run_side nvcc "$@"
  run_side fc "$@"
}

# Diagnostics with the temporaries' names made comparable: nvcc's
# /tmp/tmpxft_* files and FastCuda's work directories.
normalise_stderr() {
  sed -E \
    -e 's#(/tmp|'"${TMPDIR:-/tmp}"')/tmpxft_[0-9a-f]+_[0-9a-f]+-[0-9]+_#<TMP>/#g' \
    -e 's#[^ "'"'"'`]*/\.fastcuda/[^/ ]+/#<TMP>/#g' \
    -e 's#[^ "'"'"'`]*/tu/[^/ ]+-[0-9a-f]{8}/#<TMP>/#g' \
    -e 's#(Compile time = )[0-9.]+ ms#\1<T> ms#' \
    -e '/^fastcuda: running nvcc itself: /d' \
    "$1"
}

# Both sides exited with status 0.
expect_success() {
  local side
  for side in nvcc fc; do
    if [[ $(cat "$C/$side.rc") != 0 ]]; then
      problem "$side exited with $(cat "$C/$side.rc"); stderr:"
      sed 's/^/      /' "$C/$side.stderr" | head -30
    fi
  done
}

# FastCuda split the call: it ran nvcc only for --dryrun, and did not say
# that it runs nvcc itself.
expect_split() {
  if grep -q '^fastcuda: running nvcc itself' "$C/fc.stderr" 2>/dev/null; then
    problem "fastcuda ran nvcc itself instead of splitting: $(grep '^fastcuda: running nvcc itself' "$C/fc.stderr")"
  fi
  if ! grep -q -- '^--dryrun' "$C/fc.nvcc-calls" 2>/dev/null; then
    problem "fastcuda did not run nvcc --dryrun"
  fi
  if grep -qv -- '^--dryrun' "$C/fc.nvcc-calls" 2>/dev/null; then
    problem "fastcuda ran nvcc other than for --dryrun: $(grep -v -- '^--dryrun' "$C/fc.nvcc-calls" | head -1)"
  fi
}

# FastCuda ran nvcc itself, and said so.
expect_fallback() {
  if ! grep -q '^fastcuda: running nvcc itself: ' "$C/fc.stderr"; then
    problem "fastcuda did not say that it runs nvcc itself"
  fi
  if ! grep -qv -- '^--dryrun' "$C/fc.nvcc-calls" 2>/dev/null; then
    problem "fastcuda did not run nvcc itself"
  fi
}

same_rc() {
  if [[ $(cat "$C/nvcc.rc") != $(cat "$C/fc.rc") ]]; then
    problem "exit codes differ: nvcc $(cat "$C/nvcc.rc"), fastcuda $(cat "$C/fc.rc")"
  fi
}

same_stdout() {
  if ! cmp -s "$C/nvcc.stdout" "$C/fc.stdout"; then
    problem "stdout differs:"
    diff "$C/nvcc.stdout" "$C/fc.stdout" | head -20 | sed 's/^/      /'
  fi
}

same_stderr() {
  normalise_stderr "$C/nvcc.stderr" >"$C/nvcc.stderr.norm"
  normalise_stderr "$C/fc.stderr" >"$C/fc.stderr.norm"
  if ! cmp -s "$C/nvcc.stderr.norm" "$C/fc.stderr.norm"; then
    problem "stderr differs (normalised; < nvcc, > fastcuda):"
    diff "$C/nvcc.stderr.norm" "$C/fc.stderr.norm" | head -30 | sed 's/^/      /'
  fi
}

# The same files exist on both sides (FastCuda's .fastcuda work dirs aside).
same_file_list() {
  local side
  for side in nvcc fc; do
    (cd "$C/$side" && find . -name .fastcuda -prune -o \( -type f -print \) | LC_ALL=C sort) \
      >"$C/$side.files"
  done
  if ! cmp -s "$C/nvcc.files" "$C/fc.files"; then
    problem "the sides wrote different files (< nvcc, > fastcuda):"
    diff "$C/nvcc.files" "$C/fc.files" | sed 's/^/      /'
  fi
}

# same_bytes FILE: FILE (relative to the sides) is byte-identical.
same_bytes() {
  local f=$1
  if [[ ! -f "$C/nvcc/$f" ]]; then problem "nvcc wrote no $f"; return; fi
  if [[ ! -f "$C/fc/$f" ]]; then problem "fastcuda wrote no $f"; return; fi
  if ! cmp -s "$C/nvcc/$f" "$C/fc/$f"; then
    problem "$f differs: $(cmp "$C/nvcc/$f" "$C/fc/$f" 2>&1 || true)" \
      "(sizes $(stat -c %s "$C/nvcc/$f") vs $(stat -c %s "$C/fc/$f"))"
  fi
}

# same_fatbin OBJ: the fatbin sections are byte-identical (and not empty):
# .nv_fatbin, or __nv_relfatbin in relocatable (-rdc/-dc) objects.
same_fatbin() {
  local o=$1 side section found=0
  for side in nvcc fc; do
    if [[ ! -f "$C/$side/$o" ]]; then problem "$side wrote no $o"; return; fi
  done
  for section in .nv_fatbin __nv_relfatbin; do
    for side in nvcc fc; do
      objcopy -O binary --only-section=$section "$C/$side/$o" "$C/$side.$(basename "$o")$section"
    done
    local fb_n fb_f
    fb_n="$C/nvcc.$(basename "$o")$section"
    fb_f="$C/fc.$(basename "$o")$section"
    if [[ ! -s $fb_n && ! -s $fb_f ]]; then continue; fi
    found=1
    if ! cmp -s "$fb_n" "$fb_f"; then
      problem "$section of $o differs: $(cmp "$fb_n" "$fb_f" 2>&1 || true)" \
        "(sizes $(stat -c %s "$fb_n") vs $(stat -c %s "$fb_f"))"
    fi
  done
  if [[ $found == 0 ]]; then problem "nvcc's $o has no .nv_fatbin or __nv_relfatbin section"; fi
}

# same_symbols OBJ: the defined host symbols (address, type, name) agree.
same_symbols() {
  local o=$1 side
  for side in nvcc fc; do
    if [[ ! -f "$C/$side/$o" ]]; then problem "$side wrote no $o"; return; fi
    nm "$C/$side/$o" | grep -v ' [Uw] ' >"$C/$side.$(basename "$o").nm" || true
  done
  local nm_n nm_f
  nm_n="$C/nvcc.$(basename "$o").nm"
  nm_f="$C/fc.$(basename "$o").nm"
  if [[ ! -s $nm_n ]]; then problem "nvcc's $o defines no symbols"; return; fi
  if ! cmp -s "$nm_n" "$nm_f"; then
    if cmp -s <(cut -c18- "$nm_n") <(cut -c18- "$nm_f"); then
      problem "symbols of $o: same names and types, different addresses:"
    else
      problem "symbols of $o differ (< nvcc, > fastcuda):"
    fi
    diff "$nm_n" "$nm_f" | head -20 | sed 's/^/      /'
  fi
}

# same_objects OBJ...: each OBJ's fatbin sections and host symbols agree.
same_objects() {
  local o
  for o in "$@"; do
    same_fatbin "$o"
    same_symbols "$o"
  done
}

# Depfile parsing (make syntax): the target of the first rule, and the set of
# its prerequisites (backslash-newlines joined, escaped spaces kept).
depfile_target() {
  awk 'BEGIN { RS = "\001" }
       { gsub(/\\\n/, " "); split($0, lines, "\n"); line = lines[1];
         p = index(line, ": "); if (p == 0) p = length(line);
         t = substr(line, 1, p - 1); sub(/[ \t]+$/, "", t); gsub(/\\ /, " ", t); print t; exit }' "$1"
}
depfile_set() {
  awk 'BEGIN { RS = "\001" }
       { gsub(/\\\n/, " "); split($0, lines, "\n"); line = lines[1];
         p = index(line, ": "); if (p == 0) p = length(line);
         rest = substr(line, p + 1); gsub(/\\ /, "\002", rest);
         n = split(rest, deps, /[ \t]+/);
         for (i = 1; i <= n; i++) if (deps[i] != "") { d = deps[i]; gsub(/\002/, " ", d); print d }
         exit }' "$1" | LC_ALL=C sort -u
}

# The targets of -MP's empty rules (every line `PATH:` after the first rule), sorted.
phony_set() {
  awk 'NR > 1 && /[^ ]:$/ && !/\\$/ { sub(/:$/, ""); gsub(/\\ /, " "); print }' "$1" | LC_ALL=C sort -u
}

# same_phony_targets FILE SOURCE: each side's depfile has an empty rule for
# every dependency but SOURCE (-MP), and FastCuda's covers nvcc's.
same_phony_targets() {
  local f=$1 source=$2 side
  for side in nvcc fc; do
    phony_set "$C/$side/$f" >"$C/$side.phony"
    depfile_set "$C/$side/$f" | grep -vxF "$source" >"$C/$side.deps-but-source" || true
    if [[ ! -s "$C/$side.phony" ]]; then problem "$side's depfile has no -MP rules"; fi
    if ! cmp -s "$C/$side.phony" "$C/$side.deps-but-source"; then
      problem "$side's -MP rules are not its dependencies but the source:"
      diff "$C/$side.deps-but-source" "$C/$side.phony" | head -5 | sed 's/^/      /'
    fi
  done
  if [[ -n $(LC_ALL=C comm -23 "$C/nvcc.phony" "$C/fc.phony") ]]; then
    problem "fastcuda's depfile lacks -MP rules that nvcc's has"
  fi
}

# same_depfile FILE [DEVICE_ONLY_HEADER...]: the targets agree; FastCuda's
# set is nvcc's set plus at most the device-only headers named (by
# basename), and it must list each of those.
same_depfile() {
  local f=$1 side
  shift
  for side in nvcc fc; do
    if [[ ! -f "$C/$side/$f" ]]; then problem "$side wrote no depfile $f"; return; fi
  done
  local t_n t_f
  t_n=$(depfile_target "$C/nvcc/$f")
  t_f=$(depfile_target "$C/fc/$f")
  if [[ $t_n != "$t_f" ]]; then problem "depfile targets differ: nvcc '$t_n', fastcuda '$t_f'"; fi
  if [[ $(head -1 "$C/nvcc/$f") != "$(head -1 "$C/fc/$f")" ]]; then
    note "$f: first lines differ: nvcc '$(head -1 "$C/nvcc/$f")', fastcuda '$(head -1 "$C/fc/$f")'"
  fi
  depfile_set "$C/nvcc/$f" >"$C/nvcc.deps"
  depfile_set "$C/fc/$f" >"$C/fc.deps"
  if [[ ! -s "$C/nvcc.deps" ]]; then problem "nvcc's depfile lists nothing"; fi
  local missing extra allowed header
  missing=$(LC_ALL=C comm -23 "$C/nvcc.deps" "$C/fc.deps")
  extra=$(LC_ALL=C comm -13 "$C/nvcc.deps" "$C/fc.deps")
  if [[ -n $missing ]]; then
    problem "fastcuda's depfile lacks what nvcc's lists:"
    echo "$missing" | sed 's/^/      /'
  fi
  for header in "$@"; do
    if ! grep -q "/$header\$" "$C/fc.deps"; then
      problem "fastcuda's depfile does not list the device-only header $header"
    fi
  done
  if [[ -n $extra ]]; then
    while IFS= read -r path; do
      allowed=0
      for header in "$@"; do
        if [[ $path == */"$header" ]]; then allowed=1; fi
      done
      if [[ $allowed == 0 ]]; then problem "fastcuda's depfile lists more than nvcc's: $path"; fi
    done <<<"$extra"
  fi
}

# The usual checks of a successful compile to OBJ.
compile_checks() {
  expect_success
  expect_split
  same_stderr
  same_file_list
  same_objects "$@"
}

# share_nvcc_side CASE [any]: the nvcc side of CASE, which ran the same command
# (in a directory as deep, with the same sources), if it ran and succeeded
# (with any: however it ended): copied here (CI's 2 cores: an nvcc compile
# costs 2 CPU s, 4 for three architectures). Objects and depfiles without
# debug info do not depend on the directory nvcc ran in (anonymous
# namespaces are named after the source's path, the same for every case).
# Else false, and nothing copied. To be called first in a case, while its
# nvcc side is empty.
share_nvcc_side() {
  local from=$scratch/cases/$1 file
  [[ -d $from/nvcc && -f $from/nvcc.rc ]] || return 1
  [[ ${2:-} == any || $(cat "$from/nvcc.rc") == 0 ]] || return 1
  cp -a "$from/nvcc/." "$C/nvcc/"
  for file in rc stdout stderr; do cp "$from/nvcc.$file" "$C/nvcc.$file"; done
}

# c_kernel_with FLAGS...: compiles the kernel with FLAGS for $ARCH, the usual checks.
c_kernel_with() {
  run_pair -c "$@" $ARCH $SRC/kernel.cu -o kernel.o
  compile_checks kernel.o
}

FAILED_NAMES=()

# run_case NAME FUNCTION [ARGS...]: runs FUNCTION ARGS in a subshell (with errexit, so that
# an unexpected failure fails the case), logs to $scratch/logs/NAME.log.
run_case() {
  local name=$1 fn=$2
  shift 2
  if [[ -z ${NVCC_SIDE_OF:-} && -n ${FASTCUDA_TEST_ONLY:-} && ! $name =~ $FASTCUDA_TEST_ONLY ]]; then return; fi
  mkdir -p "$scratch/logs"
  local log="$scratch/logs/$name.log" rc=0 t0=$SECONDS
  set +e
  (
    set -euo pipefail
    CASE_ERRORS=0
    case_dirs "$name"
    "$fn" "$@"
    if [[ $CASE_ERRORS -ne 0 ]]; then exit 1; fi
  ) >"$log" 2>&1
  rc=$?
  set -e
  record "$rc" "$name ($((SECONDS - t0))s)"
  if [[ $rc -eq 0 ]]; then
    if [[ -f "$scratch/cases/$name/notes" ]]; then sed 's/^/  /' "$scratch/cases/$name/notes"; fi
  else
    FAILED_NAMES+=("$name")
    sed 's/^/  /' "$log"
  fi
  # Once more with the host compile first (FASTCUDA_EARLY_HOST=on), FastCuda's
  # side alone: nvcc's is this run's (the cases that run it once), not a
  # second nvcc compile of the same command. (Debug info names the directory
  # nvcc ran in: G_device_debug compares symbols only.)
  if [[ -z ${NVCC_SIDE_OF:-} && -n ${FASTCUDA_TEST_EARLY_HOST_AGAIN:-} && $name =~ $FASTCUDA_TEST_EARLY_HOST_AGAIN ]]; then
    NVCC_SIDE_OF=$name FASTCUDA_EARLY_HOST=on run_case "$name-early_host" "$fn" "$@"
  fi
}

# ---------------------------------------------------------------------------
# Cases.

# Line info names the files as the preprocessor found them (here relative:
# the source and an -I directory), made absolute from the directory cicc
# runs in: FastCuda must run such a cicc where nvcc does. (It records each
# file's mtime too: both sides' copies keep the originals'.)
c_line_info_relative() {
  local side
  for side in nvcc fc; do
    mkdir -p "$C/$side/inc"
    cp -p "$scratch/inc/dev_only.h" "$scratch/inc/common.h" "$C/$side/inc/"
    cp -p "$scratch/src/devhdr.cu" "$C/$side/"
  done
  run_pair -c -lineinfo -Iinc -isystem "$scratch/sysinc" $ARCH devhdr.cu -o devhdr.o
  compile_checks devhdr.o
}

c_arch_sm80() {
  run_pair -c $ARCH $SRC/kernel.cu -o kernel.o
  compile_checks kernel.o
}

# Three architectures, each as SASS and PTX; with a depfile. The command is
# gen_three_gencode's nvcc side: one nvcc run serves both (see share_nvcc_side).
THREE_GENCODES=(
  -gencode 'arch=compute_80,code=[sm_80,compute_80]'
  -gencode 'arch=compute_86,code=[sm_86,compute_86]'
  -gencode 'arch=compute_90,code=[sm_90,compute_90]')
c_gencode_three() {
  run_pair -c "${THREE_GENCODES[@]}" $SRC/kernel.cu -o kernel.o -MD -MF kernel.o.d
  compile_checks kernel.o
  same_depfile kernel.o.d
}

c_rdc_true() {
  run_pair -rdc=true -c $ARCH $SRC/rdc_a.cu -o rdc_a.o
  compile_checks rdc_a.o
}

# Two relocatable compiles (each checked as its own case would be: exit
# codes, stderr, objects), then their device link. rdc_a's is rdc_true_c's
# command, whose nvcc side it shares (see share_nvcc_side); rdc_b's says -dc.
c_dlink() {
  share_nvcc_side rdc_true_c || run_side nvcc -rdc=true -c $ARCH $SRC/rdc_a.cu -o rdc_a.o
  run_side fc -rdc=true -c $ARCH $SRC/rdc_a.cu -o rdc_a.o
  expect_success
  same_stderr
  run_pair -dc $ARCH $SRC/rdc_b.cu -o rdc_b.o
  expect_success
  same_stderr
  run_pair -dlink $ARCH rdc_a.o rdc_b.o -o dlink.o
  compile_checks dlink.o rdc_a.o rdc_b.o
}

c_G() {
  # nvcc -G does not reproduce its own fatbin bytes: compare symbols only.
  run_pair -c -G $ARCH $SRC/kernel.cu -o kernel.o
  expect_success
  expect_split
  same_stderr
  same_file_list
  same_symbols kernel.o
}





# ptxas's info lines (-Xptxas -v): nvcc printed some, and FastCuda the same.
same_ptxas_info() {
  # ptxas's own timings vary from run to run.
  normalise_stderr "$C/nvcc.stderr" | grep 'ptxas info' >"$C/nvcc.ptxas" || true
  normalise_stderr "$C/fc.stderr" | grep 'ptxas info' >"$C/fc.ptxas" || true
  if [[ ! -s "$C/nvcc.ptxas" ]]; then problem "nvcc printed no ptxas info lines"; fi
  if ! cmp -s "$C/nvcc.ptxas" "$C/fc.ptxas"; then
    problem "ptxas info lines differ (< nvcc, > fastcuda):"
    diff "$C/nvcc.ptxas" "$C/fc.ptxas" | head -20 | sed 's/^/      /'
  fi
}

# Options for the host compiler, in both spellings: -Xcompiler VALUE, and an
# option nvcc does not know (-fno-strict-aliasing) that
# -forward-unknown-to-host-compiler hands on (FastCuda's own scan of the
# arguments must not take it for an option with a value, nor lose it).
c_host_compiler_options() {
  run_pair -c -Xcompiler -fPIC -forward-unknown-to-host-compiler -fno-strict-aliasing $ARCH \
    $SRC/hostside.cu -o hostside.o
  compile_checks hostside.o
}

c_std_cxx20() {
  run_pair -c -std=c++20 $ARCH $SRC/modern.cu -o modern.o
  compile_checks modern.o
  if ! grep -q cxx20_kernel "$C/nvcc.modern.o.nm"; then problem "-std=c++20 had no effect"; fi
}

c_x_cu_cpp() {
  run_pair -x cu -c $ARCH $SRC/plain.cpp -o plain.o
  compile_checks plain.o
}

# Two architectures compiled by nvcc in parallel, one given in the long form
# (--generate-code=...), the other as -gencode.
c_threads_2() {
  run_pair --threads 2 -c $SRC/kernel.cu -o kernel.o \
    --generate-code=arch=compute_80,code=sm_80 -gencode arch=compute_86,code=sm_86
  compile_checks kernel.o
}


c_ptx() {
  run_pair -ptx $ARCH $SRC/kernel.cu -o kernel.ptx
  expect_success
  expect_split
  same_stderr
  same_file_list
  same_bytes kernel.ptx
}

c_cubin() {
  run_pair -cubin $ARCH $SRC/kernel.cu -o kernel.cubin
  expect_success
  expect_split
  same_stderr
  same_file_list
  same_bytes kernel.cubin
}

c_fatbin() {
  run_pair -fatbin $ARCH $SRC/kernel.cu -o kernel.fatbin
  expect_success
  expect_split
  same_stderr
  same_file_list
  same_bytes kernel.fatbin
}

c_D_I_isystem() {
  run_pair -c $ARCH -DFROM_COMMAND_LINE=cmdline -I$INC -isystem $SYSINC $SRC/defs.cu -o defs.o
  compile_checks defs.o
  if ! grep -q 'launch_cmdline' "$C/fc.defs.o.nm"; then problem "-D had no effect on fastcuda's object"; fi
}

c_MD_MT_MF_cmake() {
  # As CMake passes them (and with the device-only header).
  local obj=CMakeFiles/t.dir/src/devhdr.cu.o
  mkdir -p "$C/nvcc/CMakeFiles/t.dir/src" "$C/fc/CMakeFiles/t.dir/src"
  run_pair -I$INC -isystem $SYSINC $ARCH -MD -MT $obj -MF $obj.d -x cu -c $SRC/devhdr.cu -o $obj
  compile_checks $obj
  same_depfile $obj.d dev_only.h
  if grep -q 'dev_only.h' "$C/nvcc.deps"; then
    note "nvcc's depfile lists dev_only.h too"
  fi
}

c_MD_arch_specific_header() {
  # A header that only the sm_90 pass includes: FastCuda's depfile must list it.
  run_pair -I$INC -MD -MT archhdr.o -MF archhdr.o.d -c $SRC/archhdr.cu -o archhdr.o \
    -gencode arch=compute_80,code=sm_80 -gencode arch=compute_90,code=sm_90
  compile_checks archhdr.o
  same_depfile archhdr.o.d sm90_only.h
  if ! grep -q 'sm90_only.h' "$C/nvcc.deps"; then note "nvcc's depfile does not list sm90_only.h"; fi
}

# -MMD (no system headers) with -MP (an empty rule for each header), and no
# -MF: the depfile's name is nvcc's default (-MF is MD_MT_MF_cmake_style's).
c_MMD_MP() {
  run_pair -I$INC -isystem $SYSINC $ARCH -MMD -MP -c $SRC/devhdr.cu -o devhdr.o
  compile_checks devhdr.o
  same_depfile devhdr.d dev_only.h
  if grep -q 'sys_header.h' "$C/fc.deps"; then problem "-MMD depfile lists a system header"; fi
  same_phony_targets devhdr.d "$SRC/devhdr.cu"
}

c_response_at_file() {
  local side
  for side in nvcc fc; do
    echo "-c $ARCH $SRC/kernel.cu -o kernel.o" >"$C/$side/args.rsp"
  done
  run_pair @args.rsp
  same_rc
  same_stderr
  same_file_list
  if [[ $(cat "$C/nvcc.rc") == 0 ]]; then
    expect_split
    same_objects kernel.o
  else
    # nvcc 13 does not read @files ("Don't know what to do with '@args.rsp'").
    note "nvcc rejects @args.rsp (exit code $(cat "$C/nvcc.rc")); compared the failures"
    if [[ -e "$C/fc/kernel.o" ]]; then problem "fastcuda left kernel.o behind"; fi
  fi
}

c_response_optf() {
  local side
  for side in nvcc fc; do
    printf '%s\n' "-c $ARCH" "$SRC/kernel.cu" "-o kernel.o" >"$C/$side/args.rsp"
  done
  run_pair -optf args.rsp
  compile_checks kernel.o
}

# A source, object and depfile whose paths hold spaces; the object two
# directories down from where nvcc runs.
c_source_with_spaces() {
  mkdir -p "$C/nvcc/obj dir/deeper" "$C/fc/obj dir/deeper"
  run_pair -c $ARCH -I$INC "$SRC/dir with spaces/my kernel.cu" -o "obj dir/deeper/my kernel.o" \
    -MD -MF "obj dir/deeper/my kernel.o.d"
  compile_checks "obj dir/deeper/my kernel.o"
  same_depfile "obj dir/deeper/my kernel.o.d"
  if ! grep -q 'dir with spaces/my kernel.cu$' "$C/fc.deps"; then
    problem "fastcuda's depfile does not list the source with spaces as one path"
  fi
}

c_nvcc_append_flags() {
  export NVCC_APPEND_FLAGS="-DAPPENDED -DAPPENDED_VALUE=99"
  run_pair -c $ARCH $SRC/kernel.cu -o kernel.o
  compile_checks kernel.o
  if ! grep -q appended_kernel "$C/fc.kernel.o.nm"; then
    problem "NVCC_APPEND_FLAGS had no effect on fastcuda's object"
  fi
}

# failing_compile SOURCE WORD ARGS...: the compile fails the same way on both
# sides (exit code, stdout, stderr mentioning WORD) and FastCuda leaves no
# object behind, though a stale one was there before.
failing_compile() {
  local source=$1 word=$2 side
  shift 2
  for side in nvcc fc; do echo "stale object" >"$C/$side/bad.o"; done
  run_pair -c $ARCH "$SRC/$source" -o bad.o -MD -MF bad.o.d "$@"
  same_rc
  if [[ $(cat "$C/nvcc.rc") == 0 ]]; then problem "nvcc compiled the broken $source"; fi
  expect_split
  same_stdout
  same_stderr
  if ! grep -q "$word" "$C/fc.stderr"; then
    problem "fastcuda's stderr does not show the error ($word)"
  fi
  # FastCuda must remove the stale object (nvcc itself leaves it untouched).
  if [[ -e "$C/fc/bad.o" ]]; then problem "fastcuda left bad.o behind"; fi
  local leftovers file
  for side in nvcc fc; do
    leftovers=""
    for file in bad.o bad.o.d; do
      if [[ -e "$C/$side/$file" ]]; then leftovers+=" $file"; fi
    done
    if [[ -n $leftovers ]]; then note "$side leaves behind:$leftovers"; fi
  done
  # Nothing else may appear on either side.
  for side in nvcc fc; do
    if (cd "$C/$side" && find . -name .fastcuda -prune -o -type f -print) |
      awk '$0 != "./bad.o" && $0 != "./bad.o.d" && $0 != "" { other = 1 } END { exit !other }'; then
      problem "$side wrote unexpected files: $(cd "$C/$side" && find . -name .fastcuda -prune -o -type f -print)"
    fi
  done
}

c_compile_error() {
  failing_compile error.cu this_name_is_not_declared
}

c_error_host_assembler() {
  failing_compile host_error.cu this_is_not_an_x86_instruction
}

c_error_ptxas() {
  failing_compile ptxas_error.cu 'too much shared data'
}

c_warnings() {
  run_pair -c $ARCH -Xcompiler -Wall $SRC/warnings.cu -o warnings.o
  compile_checks warnings.o
  if ! grep -q 'warning #177-D' "$C/fc.stderr"; then problem "fastcuda printed no front-end warning"; fi
}

c_rerun_incremental() {
  # Not in nvcc's contract but in a launcher's: rerunning the same command
  # replays what the steps printed and keeps the object; after an edit of a
  # device-only header the object is rebuilt (like nvcc's of the new source),
  # and FastCuda prints what nvcc prints, ptxas's info lines (-Xptxas -v)
  # among them.
  mkdir -p "$C/src_private"
  cp "$scratch/src/devhdr.cu" "$scratch/inc/common.h" "$scratch/inc/dev_only.h" "$scratch/sysinc/sys_header.h" "$C/src_private/"
  local -a args=(-c "$ARCH" -Xptxas -v -I../src_private -MD -MF devhdr.o.d ../src_private/devhdr.cu -o devhdr.o)
  run_side fc "${args[@]}"
  expect_success_side fc
  expect_split
  cp "$C/fc/devhdr.o" "$C/first.o"
  normalise_stderr "$C/fc.stderr" >"$C/first.stderr"
  run_side fc "${args[@]}"
  expect_success_side fc
  normalise_stderr "$C/fc.stderr" >"$C/second.stderr"
  if ! cmp -s "$C/first.stderr" "$C/second.stderr"; then
    problem "the rerun printed differently (< first, > second):"
    diff "$C/first.stderr" "$C/second.stderr" | head -20 | sed 's/^/      /'
  fi
  if ! cmp -s "$C/first.o" "$C/fc/devhdr.o"; then problem "the rerun changed devhdr.o"; fi
  # The device-only header changes: the object must follow.
  sed -i 's/2.0f \* x/7.0f * x + 1.0f/' "$C/src_private/dev_only.h"
  grep -q '7.0f' "$C/src_private/dev_only.h"
  run_side fc "${args[@]}"
  run_side nvcc "${args[@]}"
  compile_checks devhdr.o
  same_ptxas_info
  same_depfile devhdr.o.d dev_only.h
  if cmp -s "$C/first.o" "$C/fc/devhdr.o"; then
    problem "fastcuda did not rebuild devhdr.o after dev_only.h changed"
  fi
}

c_fallback_E() {
  run_pair -E $ARCH -I$INC -isystem $SYSINC $SRC/devhdr.cu
  expect_success
  expect_fallback
  same_stdout
  same_stderr
  if ! grep -q 'use_device_header' "$C/fc.stdout"; then problem "fastcuda -E printed no preprocessed source"; fi
}

c_fallback_version() {
  run_pair --version
  expect_success
  expect_fallback
  same_stdout
  same_stderr
}

# c_fallback_compile FLAGS...: a compile whose FLAGS act outside the dryrun
# (timing reports, temporaries beside the output): nvcc runs it, and the
# sides write the same files. To a cubin, not an object: the fallback does
# not depend on the mode, and a cubin costs a third of an object's compile
# (no cudafe++, no host compile).
c_fallback_compile() {
  run_pair -cubin $ARCH $SRC/kernel.cu -o kernel.cubin "$@"
  expect_success
  expect_fallback
  same_file_list
  same_bytes kernel.cubin
}

# c_fallback_stdin: the source from standard input (`-`, among the options),
# which nvcc's dryrun would consume: nvcc runs it, and the cubin is nvcc's
# (a cubin, as c_fallback_compile says why). (A source without anonymous
# namespaces: nvcc names those after its temporary copy of standard input,
# which holds its process id.)
c_fallback_stdin() {
  run_side nvcc -x cu -cubin - $ARCH -o kernel.cubin <"$scratch/src/plain.cpp"
  run_side fc -x cu -cubin - $ARCH -o kernel.cubin <"$scratch/src/plain.cpp"
  expect_success
  expect_fallback
  same_stderr
  same_file_list
  same_bytes kernel.cubin
}

# c_unwritable_output OUTPUT: nvcc cannot write its output there; FastCuda
# runs it for its error and writes (or removes) nothing either. A cubin, as
# c_fallback_compile says why: FastCuda finds no place for the output (its
# work directory, the output's directory) whatever the mode.
c_unwritable_output() {
  mkdir -p "$C/nvcc/out" "$C/fc/out"
  run_pair -cubin $ARCH $SRC/kernel.cu -o "$1"
  same_rc
  if [[ $(cat "$C/fc.rc") == 0 ]]; then problem "fastcuda succeeded where nvcc cannot write the output"; fi
  expect_fallback
  same_stderr
  same_file_list
  if [[ ! -d $C/fc/out ]]; then problem "fastcuda removed the directory out/"; fi
  if [[ -e $C/fc/missing ]]; then problem "fastcuda created the output's directory"; fi
}

c_gen_three_gencode() {
  # In the case dir (under the scratch dir, not /tmp by default).
  share_nvcc_side gencode_three_sm_compute ||
    run_side nvcc -c "${THREE_GENCODES[@]}" $SRC/kernel.cu -o kernel.o -MD -MF kernel.o.d
  expect_success_side nvcc
  enter_side fc
  gen_checks "${THREE_GENCODES[@]}"
  leave_side fc
  if [[ -f "$C/fc/kernel.o" ]]; then
    same_objects kernel.o
    same_depfile kernel.o.d
  fi
}

gen_checks() {
  local rc=0 w=$C/w
  (cd "$w" && FASTCUDA_TEST_NVCC_LOG="$C/fc.nvcc-calls" \
    "$FASTCUDA" gen --out gen -- "$NVCC_SHIM" -c "$@" $SRC/kernel.cu \
    -o kernel.o -MD -MF kernel.o.d) >"$C/gen.log" 2>&1 || rc=$?
  if [[ $rc != 0 ]]; then
    problem "fastcuda gen failed ($rc):"
    sed 's/^/      /' "$C/gen.log"
    return
  fi
  if [[ -s "$C/gen.log" ]]; then
    problem "fastcuda gen printed something:"
    sed 's/^/      /' "$C/gen.log"
  fi
  local manifest=$w/gen/build.ninja arch count
  for arch in 80 86 90; do
    count=$(grep -E "^build .*: (CICC|PTXAS|CPP_DEVICE) " "$manifest" |
      grep -cE "compute_$arch|sm_$arch" || true)
    if [[ $count -lt 3 ]]; then
      problem "build.ninja has $count CPP_DEVICE/CICC/PTXAS edges for arch $arch (want >= 3)"
    fi
  done
  # No /tmp path: no nvcc temporary, nothing else either (the scratch dir and
  # the fastcuda binary aside, should CI have put them under /tmp).
  if grep -q 'tmpxft' "$manifest" ||
     grep -q '/tmp/' <<<"$(sed -e "s#$scratch##g" -e "s#$(dirname "$FASTCUDA")##g" "$manifest")"; then
    problem "build.ninja mentions /tmp:"
    sed "s#$scratch##g" "$manifest" | grep -o '[^ ]*/tmp/[^ ]*' | head -5 | sed 's/^/      /'
  fi
  # Build it from another directory: relative paths are the gen dir's.
  rc=0
  (cd "$scratch" && ninja -C "$w/gen") >"$C/ninja1.log" 2>&1 || rc=$?
  if [[ $rc != 0 ]]; then
    problem "ninja -C gen failed ($rc):"
    tail -30 "$C/ninja1.log" | sed 's/^/      /'
    return
  fi
  if [[ -e "$w/.fastcuda" ]]; then problem "gen's build wrote a .fastcuda dir"; fi
  if [[ ! -d "$w/gen/tu" ]]; then problem "gen's build has no temporaries under gen/tu"; fi
  if (cd "$w" && find . -path ./gen -prune -o -type f -print) |
    awk '$0 != "./kernel.o" && $0 != "./kernel.o.d" && $0 != "" { other = 1 } END { exit !other }'; then
    problem "gen's build wrote files outside gen/ besides kernel.o and kernel.o.d:"
    (cd "$w" && find . -path ./gen -prune -o -type f -print) | sed 's/^/      /'
  fi
  rc=0
  ninja -C "$w/gen" -n >"$C/ninja2.log" 2>&1 || rc=$?
  if [[ $rc != 0 ]] || ! grep -qx 'ninja: no work to do.' "$C/ninja2.log"; then
    problem "second ninja -n is not a no-op (rc $rc):"
    sed 's/^/      /' "$C/ninja2.log" | head -20
  fi
}

expect_success_side() {
  if [[ $(cat "$C/$1.rc") != 0 ]]; then
    problem "$1 exited with $(cat "$C/$1.rc"); stderr:"
    sed 's/^/      /' "$C/$1.stderr" | head -30
  fi
}

c_concurrent_launchers() {
  # Four launchers at once in one directory, as CMake's Ninja runs them;
  # two sources share a basename; all write depfiles. nvcc's side runs them
  # one by one. (tests/integration/concurrency.sh runs eight at once, four on
  # one source; -D and -I are D_I_isystem's, -dc dlink_two_dc_objects'.)
  local obj=CMakeFiles/t.dir
  local -a jobs=(
    "k|-c $ARCH $SRC/kernel.cu -o $obj/src/kernel.cu.o -MD -MT $obj/src/kernel.cu.o -MF $obj/src/kernel.cu.o.d"
    "sa|-c $ARCH $SRC/a/same.cu -o $obj/src/a/same.cu.o -MD -MT $obj/src/a/same.cu.o -MF $obj/src/a/same.cu.o.d"
    "sb|-c $ARCH $SRC/b/same.cu -o $obj/src/b/same.cu.o -MD -MT $obj/src/b/same.cu.o -MF $obj/src/b/same.cu.o.d"
    "h|-c $ARCH -I$INC -isystem $SYSINC $SRC/devhdr.cu -o $obj/src/devhdr.cu.o -MD -MT $obj/src/devhdr.cu.o -MF $obj/src/devhdr.cu.o.d"
  )
  local side job tag args pid
  for side in nvcc fc; do
    mkdir -p "$C/$side/$obj/src/a" "$C/$side/$obj/src/b"
  done
  enter_side nvcc
  for job in "${jobs[@]}"; do
    tag=${job%%|*}
    args=${job#*|}
    # shellcheck disable=SC2086 # the arguments have no spaces
    (cd "$C/w" && "$NVCC" $args) >"$C/nvcc.$tag.out" 2>&1 || echo "nvcc $tag failed" >>"$C/failures"
  done
  leave_side nvcc
  enter_side fc
  local -a pids=()
  for job in "${jobs[@]}"; do
    tag=${job%%|*}
    args=${job#*|}
    # shellcheck disable=SC2086
    (cd "$C/w" && FASTCUDA_TEST_NVCC_LOG="$C/fc.nvcc-calls" exec "$FASTCUDA" "$NVCC_SHIM" $args) \
      >"$C/fc.$tag.out" 2>&1 &
    pids+=("$!:$tag")
  done
  for pid in "${pids[@]}"; do
    if ! wait "${pid%%:*}"; then
      problem "fastcuda job ${pid#*:} failed:"
      sed 's/^/      /' "$C/fc.${pid#*:}.out"
    fi
  done
  leave_side fc
  expect_split
  if [[ $(grep -c -- '^--dryrun' "$C/fc.nvcc-calls") != "${#jobs[@]}" ]]; then
    problem "expected ${#jobs[@]} nvcc --dryrun calls, got: $(cat "$C/fc.nvcc-calls")"
  fi
  if [[ -s "$C/failures" ]]; then problem "$(cat "$C/failures")"; fi
  for job in "${jobs[@]}"; do
    tag=${job%%|*}
    if ! cmp -s "$C/nvcc.$tag.out" "$C/fc.$tag.out"; then
      problem "job $tag printed differently:"
      diff "$C/nvcc.$tag.out" "$C/fc.$tag.out" | head -10 | sed 's/^/      /'
    fi
  done
  same_file_list
  local o
  for o in kernel.cu.o a/same.cu.o b/same.cu.o devhdr.cu.o; do
    same_objects "$obj/src/$o"
  done
  same_depfile "$obj/src/kernel.cu.o.d"
  same_depfile "$obj/src/a/same.cu.o.d"
  same_depfile "$obj/src/b/same.cu.o.d"
  same_depfile "$obj/src/devhdr.cu.o.d" dev_only.h
}

echo "flag_matrix: fastcuda $FASTCUDA, nvcc $NVCC, scratch $scratch"

run_case c_arch_sm80 c_arch_sm80
run_case gencode_three_sm_compute c_gencode_three
run_case rdc_true_c c_rdc_true
run_case dlink_two_dc_objects c_dlink
run_case G_device_debug c_G
run_case g_host_debug c_kernel_with -g
run_case lineinfo_relative_paths c_line_info_relative
# Options nvcc hands to its tools, the same path through FastCuda (the
# dryrun carries them): -ccbin (which FastCuda also reads), a host -O level,
# --use_fast_math (device code).
run_case ccbin_gxx_O3_use_fast_math c_kernel_with -ccbin g++ -O3 --use_fast_math
run_case Xcompiler_fPIC_forward_unknown_fno_strict_aliasing c_host_compiler_options
run_case std_cxx20 c_std_cxx20
run_case x_cu_on_cpp c_x_cu_cpp
run_case threads_2_generate_code_and_gencode c_threads_2
run_case ptx c_ptx
run_case cubin_sm80 c_cubin
run_case fatbin c_fatbin
run_case D_I_isystem c_D_I_isystem
run_case MD_MT_MF_cmake_style c_MD_MT_MF_cmake
run_case MD_arch_specific_header c_MD_arch_specific_header
run_case MMD_MP c_MMD_MP
run_case response_file_at c_response_at_file
run_case response_file_optf c_response_optf
run_case paths_with_spaces_output_two_dirs_down c_source_with_spaces
run_case nvcc_append_flags_env c_nvcc_append_flags
run_case compile_error c_compile_error
run_case error_host_assembler c_error_host_assembler
run_case error_ptxas c_error_ptxas
run_case warnings c_warnings
run_case fallback_E c_fallback_E
run_case fallback_version c_fallback_version
run_case fallback_time c_fallback_compile --time times.csv
run_case fallback_device_time_trace c_fallback_compile -fdevice-time-trace trace.json
run_case fallback_objdir_as_tempdir c_fallback_compile --objdir-as-tempdir
run_case fallback_stdin c_fallback_stdin
run_case output_is_directory c_unwritable_output out/
run_case output_directory_missing c_unwritable_output missing/kernel.cubin
run_case rerun_incremental c_rerun_incremental
run_case gen_three_gencode c_gen_three_gencode
run_case concurrent_launchers_one_dir c_concurrent_launchers

trap - EXIT
echo "runtime ${SECONDS}s"
if [[ $failed -ne 0 ]]; then echo "failed: ${FAILED_NAMES[*]}"; fi
finish

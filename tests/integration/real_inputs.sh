#!/usr/bin/env bash
# Never a stale object, for the files the host compiler and nvlink read that
# no depfile names: a response file given to the host compiler (-Xcompiler
# @FILE), a -ccbin wrapper script, a file that host code's assembly
# includes (.incbin), the libraries that -L and -l name to a device link,
# and the headers of a C++ source that the host compiler compiles itself.
# Each case compiles, edits that file (where it has preprocessing steps,
# their output stays the same, and restat would skip the steps after them),
# compiles again and compares the object with a fresh nvcc's.
#
# usage: real_inputs.sh FASTCUDA_BINARY [NVCC]
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
source "$here/checks.sh" real_inputs "$@"
cd "$scratch"
arch=(-arch=sm_80)

# An inline function: -fkeep-inline-functions gives it (and those of CUDA's
# headers) a symbol, and changes no preprocessed text.
inline_kernel() {
  printf '%s\n' '__global__ void k(int *p) { *p = 1; }' 'inline int helper(int x) { return x * 3; }' \
    'int run(int *p) { k<<<1, 1>>>(p); return helper(2); }' > k.cu
}

# nvcc's object for the arguments and files of a case, written once (in the
# case's directory) to refs/NAME.o and compared with each mode's that ends
# with the same arguments and files (CI's 2 cores: each nvcc compile is 2
# CPU s). The sources have no anonymous namespace, so nvcc's object does not
# depend on the directory it compiles in.
mkdir -p refs
fresh_as() {  # NAME OBJECT NVCC-ARGS...: OBJECT equals refs/NAME.o, what nvcc writes now from the ARGS
  local name=$1 object=$2
  shift 2
  [ -f "$scratch/refs/$name.o" ] || "$NVCC" "$@" -o "$scratch/refs/$name.o" || return 1
  same_object "$object" "$scratch/refs/$name.o"
}

# 1. A response file of the host compiler's own (-Xcompiler @FILE), which nvcc
# hands on unread: an edit changes the host object, not the dryrun. The
# launcher's directory then has it edited back with an older mtime (a
# restore).
response_flags=("${arch[@]}" -Xcompiler @host.rsp -c k.cu)
host_response_file() (  # launcher|graph: -Wall, then -fkeep-inline-functions
  mkdir -p "host-rsp-$1" && cd "host-rsp-$1"
  inline_kernel && echo -Wall > host.rsp
  compile_as "$1" "${response_flags[@]}" -o k.o && echo -fkeep-inline-functions > host.rsp &&
    compile_as "$1" "${response_flags[@]}" -o k.o && fresh_as keep-inline k.o "${response_flags[@]}"
)
host_response_file_older() (  # after host_response_file launcher: -Wall again, its mtime older than the object's
  cd host-rsp-launcher && echo -Wall > host.rsp && touch -d 2020-01-01 host.rsp &&
    compile_as launcher "${response_flags[@]}" -o k.o && fresh_as wall k.o "${response_flags[@]}"
)
check "launcher: an edited host compiler response file (-Xcompiler @FILE): fresh" host_response_file launcher
check "launcher: a host compiler response file restored with an older mtime: fresh" host_response_file_older
check "build: an edited host compiler response file (-Xcompiler @FILE): fresh" host_response_file graph

# 2. A -ccbin wrapper script whose content changes: the steps it runs read it.
ccbin_wrapper() (
  mkdir -p ccbin && cd ccbin
  inline_kernel
  printf '#!/bin/sh\nexec g++ "$@"\n' > wrap.sh && chmod +x wrap.sh
  local flags=("${arch[@]}" -ccbin ./wrap.sh -c k.cu)
  "$FASTCUDA" "$NVCC" "${flags[@]}" -o k.o &&
    printf '#!/bin/sh\nexec g++ -fkeep-inline-functions "$@"\n' > wrap.sh &&
    "$FASTCUDA" "$NVCC" "${flags[@]}" -o k.o && fresh k.o "${flags[@]}"
)
check "launcher: an edited -ccbin wrapper script: fresh" ccbin_wrapper

# 3. Host code whose assembly includes a file (.incbin): no depfile names it,
# and nvcc reads it anew whenever it compiles. blob_end's address is its size.
incbin_kernel() {
  printf '%s\n' '__global__ void k(int *p) { *p = 1; }' \
    'asm(".section .rodata\n.global blob\nblob:\n.incbin \"data.bin\"\n.global blob_end\nblob_end:\n.previous");' \
    'void run(int *p) { k<<<1, 1>>>(p); }' > k.cu
}
incbin() (  # launcher|graph
  mkdir -p "incbin-$1" && cd "incbin-$1"
  incbin_kernel && printf 1234 > data.bin
  local flags=("${arch[@]}" -c k.cu)
  compile_as "$1" "${flags[@]}" -o k.o && printf 12345678 > data.bin &&
    { [ "$1" = launcher ] || touch k.cu; } && compile_as "$1" "${flags[@]}" -o k.o && fresh_as incbin k.o "${flags[@]}"
)
check "launcher: host assembly's .incbin file edited: fresh" incbin launcher
check "build: host assembly's .incbin file edited, the source touched: fresh" incbin graph

# 4. A device link of libraries found through -L and -l: nvlink reads them.
device_library() (
  mkdir -p dlink && cd dlink
  printf '%s\n' 'extern __device__ int value();' '__global__ void k(int *p) { *p = value(); }' > m.cu
  library() {  # VALUE: libdev.a's value() returns VALUE
    printf '__device__ int value() { return %s; }\n' "$1" > d.cu &&
      "$NVCC" "${arch[@]}" -dc d.cu -o d.o && rm -f libdev.a && "$NVCC" "${arch[@]}" -lib d.o -o libdev.a
  }
  local flags=("${arch[@]}" -dlink m.o -L. -ldev)
  "$NVCC" "${arch[@]}" -dc m.cu -o m.o && library 1 && "$FASTCUDA" "$NVCC" "${flags[@]}" -o m_dlink.o &&
    library 2 && "$FASTCUDA" "$NVCC" "${flags[@]}" -o m_dlink.o && fresh m_dlink.o "${flags[@]}"
)
check "launcher: -dlink with -L. -ldev, the library rebuilt: fresh" device_library

# 5. A C++ source that nvcc hands to the host compiler whole (-x c++, or a
# .cpp): the host compile reads its headers itself. Host code only: the
# objects are byte-identical. The header is edited within the tick the
# object was written in (its mtime is the object's, as on a busy machine):
# an mtime that is not newer, but a change after the compile started.
host_only_source() (  # launcher|graph, then -MD or nothing
  mkdir -p "host-only-$1${2:-}" && cd "host-only-$1${2:-}"
  printf '#include "v.h"\nint value() { return V; }\n' > k.cu && echo '#define V 1' > v.h
  local flags=(-x c++ ${2:+"$2"} -c k.cu)
  compile_as "$1" "${flags[@]}" -o k.o && echo '#define V 2' > v.h && touch -r k.o v.h &&
    compile_as "$1" "${flags[@]}" -o k.o &&
    "$NVCC" "${flags[@]}" -o reference.o && cmp -s k.o reference.o
)
check "launcher: a C++ source's header edited: fresh" host_only_source launcher
check "launcher: a C++ source's header edited, with -MD: fresh" host_only_source launcher -MD
check "build: a C++ source's header edited, with -MD: fresh" host_only_source graph -MD

finish

#!/usr/bin/env bash
# Never a stale object when a file goes back in time: a step reruns when a
# file it read changed since it read it, whatever the file's mtime says (an
# older text restored with `cp -p`, `rsync -a` or `tar x`; a future mtime
# from a skewed clock), as plain Ninja reruns the whole nvcc call when any
# input of the TU is newer than the object. Through `fastcuda build` and
# `fastcuda ninja`; each case compares the object with a fresh nvcc's.
#
# usage: stale_reads.sh FASTCUDA_BINARY [NVCC]
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
source "$here/checks.sh" stale_reads "$@"
cd "$scratch"
flags=(-arch=sm_80 -c k.cu -o k.o)

build() {  # graph|ninja: builds k.o from k.cu here, through `fastcuda build` or `fastcuda ninja`
  if [ "$1" = graph ]; then
    printf '[{"directory": "%s", "file": "k.cu", "command": "%s %s"}]\n' "$PWD" "$NVCC" "${flags[*]}" > db.json
    "$FASTCUDA" build --compdb db.json --out graph > build.log 2>&1
  else
    cat > build.ninja <<N
rule nvcc
  command = $NVCC -MD -MF \$out.d ${flags[*]}
  depfile = \$out.d
  deps = gcc
build k.o: nvcc k.cu
N
    "$FASTCUDA" ninja > build.log 2>&1
  fi
}
fresh() { "$NVCC" "${flags[@]/k.o/reference.o}" && same_object k.o reference.o; }
device_header() {  # VALUE: d.h gives device code VALUE (the host pass sees another)
  printf '#ifdef __CUDA_ARCH__\n#define DEVICE_VALUE %s\n#else\n#define DEVICE_VALUE 0\n#endif\n' "$1" > d.h
}
host_header() { printf 'inline int host_value() { return %s; }\n' "$1" > h.h; }  # VALUE
kernel() {
  cat > k.cu <<'CU'
#include "d.h"
#ifndef __CUDA_ARCH__
#include "h.h"
#endif
__global__ void k(int *p) { *p = DEVICE_VALUE; }
void run(int *p) { k<<<1, 1>>>(p); }
#ifndef __CUDA_ARCH__
int host() { return host_value(); }
#endif
CU
}
old() { touch -d 2020-01-01 "$@"; }

# A device-only header restored to an earlier text with its earlier mtime,
# with a host-only header edited: only the host pass's inputs are newer.
restored_device_header() (  # graph|ninja
  mkdir -p "restored-$1" && cd "restored-$1"
  kernel && host_header 1 && device_header 1 && old d.h k.cu
  cp -p d.h d.h.saved && build "$1" && device_header 2 && build "$1" &&
    cp -p d.h.saved d.h && host_header 2 && build "$1" && fresh
)
check "build: a device-only header restored older, a host-only header edited: fresh" restored_device_header graph
check "ninja: a device-only header restored older, a host-only header edited: fresh" restored_device_header ninja

# An edit that breaks the compile (cudafe++ fails), then the good header put
# back with its old mtime: the next build succeeds.
failing_edit_undone() (  # graph|ninja
  mkdir -p "undone-$1" && cd "undone-$1"
  kernel && host_header 1 && device_header 1 && old d.h h.h k.cu
  cp -p h.h h.h.saved && build "$1" && echo 'int broken = ;' >> h.h && ! build "$1" &&
    cp -p h.h.saved h.h && build "$1" && fresh
)
check "build: a failing edit undone with cp -p: builds, fresh" failing_edit_undone graph
check "ninja: a failing edit undone with cp -p: builds, fresh" failing_edit_undone ninja

# A header given a future mtime without a change (a skewed clock, an archive
# from a machine ahead), then edited now: the edit is built.
future_then_edited() (  # graph|ninja
  mkdir -p "future-$1" && cd "future-$1"
  kernel && host_header 1 && device_header 1 && old d.h h.h k.cu
  build "$1" && touch -d '+1 day' d.h && build "$1" && device_header 2 && build "$1" && fresh
)
check "build: a header with a future mtime, then edited: fresh" future_then_edited graph
check "ninja: a header with a future mtime, then edited: fresh" future_then_edited ninja

finish

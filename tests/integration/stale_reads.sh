#!/usr/bin/env bash
# Never a stale object when a file goes back in time: a step reruns when a
# file it read changed since it read it, whatever the file's mtime says (an
# older text restored with `cp -p`, `rsync -a` or `tar x`; a future mtime
# from a skewed clock), as plain Ninja reruns the whole nvcc call when any
# input of the TU is newer than the object. Through `fastcuda build` and
# `fastcuda ninja`; each case compares the object with a fresh nvcc's (one
# nvcc object for each device value the cases end with: same_object compares
# device code and host symbols, which the host value does not change).
# The cases of each way run one after another in one directory, each from
# the built state the last left: one first build a way instead of one a case.
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
fresh() { same_object k.o "../reference-$1.o"; }  # DEVICE-VALUE: k.o is nvcc's object of the sources now
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
for value in 1 2; do  # nvcc's objects of the sources the cases end with, device value 1 and 2
  mkdir -p "reference-$value" && (cd "reference-$value" && kernel && host_header 1 && device_header "$value" &&
    "$NVCC" "${flags[@]/k.o/../reference-$value.o}")
done

# A device-only header restored to an earlier text with its earlier mtime,
# with a host-only header edited: only the host pass's inputs are newer.
restored_device_header() (  # graph|ninja: the first case, in a new directory
  mkdir -p "cases-$1" && cd "cases-$1"
  kernel && host_header 1 && device_header 1 && old d.h k.cu
  cp -p d.h d.h.saved && build "$1" && device_header 2 && build "$1" &&
    cp -p d.h.saved d.h && host_header 2 && build "$1" && fresh 1
)
check "build: a device-only header restored older, a host-only header edited: fresh" restored_device_header graph
check "ninja: a device-only header restored older, a host-only header edited: fresh" restored_device_header ninja

# An edit that breaks the compile (cudafe++ fails), then the good header put
# back with its old mtime: the next build succeeds.
failing_edit_undone() (  # graph|ninja: after restored_device_header
  cd "cases-$1" && old h.h && cp -p h.h h.h.saved && build "$1" && echo 'int broken = ;' >> h.h && ! build "$1" &&
    cp -p h.h.saved h.h && build "$1" && fresh 1
)
check "build: a failing edit undone with cp -p: builds, fresh" failing_edit_undone graph
check "ninja: a failing edit undone with cp -p: builds, fresh" failing_edit_undone ninja

# A header given a future mtime without a change (a skewed clock, an archive
# from a machine ahead), then edited now: the edit is built.
future_then_edited() (  # graph|ninja: after failing_edit_undone, d.h, h.h and k.cu old
  cd "cases-$1" && build "$1" && touch -d '+1 day' d.h && build "$1" && device_header 2 && build "$1" && fresh 2
)
check "build: a header with a future mtime, then edited: fresh" future_then_edited graph
check "ninja: a header with a future mtime, then edited: fresh" future_then_edited ninja

finish

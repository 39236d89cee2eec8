#!/usr/bin/env bash
# The big intermediates (preprocessed text, cudafe++'s host source, the
# .fatbin.c) and the cubins kept as stubs once the one step that reads them has run, against
# real nvcc. A stub is an empty file (no disk block) whose extended
# attribute holds the body's hash and size. A reader that must run again
# gets its input regenerated from the producer's command, as the manifest
# names it, so its object is still nvcc's:
#  after a build, the four big files and the cubin are stubs, what cicc writes that no
#  step reads (the .cudafe1.gpu, .cudafe1.c) is empty, and the graph is
#  small, a light TU's work dir a block per file it must keep, its kept
#  depfiles none (their headers in a shared list); a
#  no-op runs nothing; a source edit rebuilds nvcc's object; a flag that
#  reaches cicc alone reruns cicc from a regenerated `.cpp1.ii`, a host flag
#  the host compile from a regenerated `.cudafe1.cpp` (through cudafe++ from
#  a regenerated `.cpp4.ii`), a fatbinary flag fatbinary from a cubin that
#  ptxas writes again; stubs whose attribute a copy dropped are not
#  read empty; a removed object comes back as nvcc's; an edit
#  and its revert give nvcc's objects, then a no-op; a regenerated body
#  other than its stub (`__TIME__`) makes its producer run again next build;
#  where ptxas alone reads cicc's PTX it is a stub too, and a ptxas flag
#  reruns ptxas from PTX written again; FASTCUDA_KEEP_INTERMEDIATES keeps
#  the bodies whole.
#
# usage: intermediate_stubs.sh FASTCUDA_BINARY [NVCC]
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/checks.sh" intermediate_stubs "$@"
cd "$scratch"

printf '#pragma once\n#define SCALE 2.f\n' > scale.h
cat > k.cu <<'C'
#include <cstdio>
#include "scale.h"
__global__ void scale(float *x) { x[threadIdx.x] *= SCALE; }
void report(int n) { std::printf("host side %d\n", n); }
C
args=(-c k.cu -MD -arch=sm_80)
generate() { "$FASTCUDA" gen --out graph -- "$NVCC" "$@" -o k.o; }
build() { ninja -C graph > "$1.log"; }
ran() { grep -q "] $2 " "$1.log"; }
noop() { ninja -C graph -n | grep -q 'no work to do'; }

is_stub() {
  [ -f "$1" ] && [ ! -s "$1" ] &&
    python3 -c 'import os, sys; os.getxattr(sys.argv[1], "user.fastcuda.stub")' "$1" 2> /dev/null
}
all_stubs() {
  work=$(dirname "$(find graph -name k.cpp4.ii)")
  is_stub "$work/k.cpp4.ii" && is_stub "$work/k.cpp1.ii" && is_stub "$work/k.cudafe1.cpp" &&
    is_stub "$work/k.fatbin.c" && is_stub "$work/k.sm_80.cubin" && [ ! -s "$work/k.cudafe1.gpu" ] && [ ! -s "$work/k.cudafe1.c" ] &&
    [ -z "$(find "$work" -name "*.recipe" -o -name "*.fastcuda-stub")" ]
}
small_graph() { [ "$(du -sk graph | cut -f1)" -lt 200 ]; }
# The TU's work dir in 4 KiB blocks, from the files' sizes (the same on any
# file system): what a light TU keeps beside its object.
kept_blocks() { find "$(dirname "$(find graph -name k.cpp4.ii)")" -type f -printf '%s\n' |
                  awk '{ blocks += int(($1 + 4095) / 4096) } END { print blocks }'; }
# A block each for the PTX, cicc's stub, the module id and the
# environment; the five stubs, cicc's unread outputs, the steps' quiet
# output and the kept preprocess depfiles take none: their headers are in
# lists beside the work dir that the TUs with the same headers share.
few_blocks() { echo "  $(kept_blocks) blocks"; [ "$(kept_blocks)" -le 4 ]; }
shared_headers() {
  local kept
  for kept in $(find graph -name 'k.cpp*.ii.deps'); do
    [ ! -s "$kept" ] && python3 -c 'import os, sys; os.getxattr(sys.argv[1], "user.fastcuda.headers")' "$kept" ||
      return 1
  done
  [ -n "$kept" ] && grep -q 'scale\.h' "$(dirname "$(dirname "$kept")")"/fastcuda-headers/*
}

generate "${args[@]}"
build first
check "after a build the big intermediates are empty stubs, nothing beside them" all_stubs
check "after a build the graph is small (under 200 KB)" small_graph
check "a light TU keeps at most 4 blocks of 4 KiB beside its object" few_blocks
check "its kept depfiles are empty, their headers in a shared list" shared_headers
check "a no-op runs nothing" noop

sed -i 's/2.f/3.f/' scale.h
build edit
edit_reran() { ran edit CPP_DEVICE && ran edit CICC; }
check "a header edit reruns preprocessing and cicc" edit_reran
check "after a header edit the object equals nvcc's" fresh k.o "${args[@]}"
check "after a header edit the intermediates are stubs again" all_stubs

args=(-c k.cu -MD -arch=sm_80 -ftz=true)
generate "${args[@]}"
build device_flag
device_flag_regenerates() { ran device_flag CICC && ! ran device_flag CPP_DEVICE; }
check "a cicc-only flag reruns cicc from a regenerated input, not preprocessing" device_flag_regenerates
check "after a cicc-only flag the object equals nvcc's" fresh k.o "${args[@]}"
check "after a cicc-only flag a no-op runs nothing" noop
check "after a cicc-only flag the intermediates are stubs" all_stubs

args=(-c k.cu -MD -arch=sm_80 -ftz=true -Xcompiler -Wall)
generate "${args[@]}"
build host_flag
host_flag_regenerates() { ran host_flag HOST_CC && ! ran host_flag CUDAFE; }
check "a host flag reruns the host compile from a regenerated input, not cudafe++" host_flag_regenerates
check "after a host flag the object equals nvcc's" fresh k.o "${args[@]}"
check "after a host flag a no-op runs nothing" noop

args=(-c k.cu -MD -arch=sm_80 -ftz=true -Xcompiler -Wall -Xfatbin -compress-all)
generate "${args[@]}"
build fatbin_flag
fatbin_flag_regenerates() { ran fatbin_flag FATBINARY && ! ran fatbin_flag PTXAS; }
check "a fatbinary flag reruns fatbinary from a regenerated cubin, not ptxas's edge" fatbin_flag_regenerates
check "after a fatbinary flag the object equals nvcc's" fresh k.o "${args[@]}"
check "after a fatbinary flag the intermediates are stubs" all_stubs
# nvcc's object of these flags and this source: the reference again below
# (after the removed object, and after the edit's revert).
cp reference.o fatbin_flag_reference.o

rm k.o
build removed
check "a removed object comes back as nvcc's" same_object k.o fatbin_flag_reference.o
check "after a removed object a no-op runs nothing" noop
check "after a removed object the intermediates are stubs" all_stubs

cp scale.h scale.h.orig
sed -i 's/3.f/4.f/' scale.h
build edited
check "edit: the object equals nvcc's" fresh k.o "${args[@]}"
cp scale.h.orig scale.h
build reverted
check "revert: the object equals nvcc's" same_object k.o fatbin_flag_reference.o
check "after the revert a no-op runs nothing" noop

# A copy of the build directory that drops extended attributes (tar or cp
# without them): the stubs are empty files, which a reader that must run
# never reads as they are.
strip_stub_attributes() {
  find graph -type f -empty -exec python3 -c '
import os, sys
for path in sys.argv[1:]:
    if "user.fastcuda.stub" in os.listxattr(path):
        os.removexattr(path, "user.fastcuda.stub")' {} +
}
strip_stub_attributes
args=(-c k.cu -MD -arch=sm_80 -ftz=false -Xcompiler -Wall)
generate "${args[@]}"
build copied
check "stubs that lost their attribute in a copy: a cicc-only flag still gives nvcc's object" fresh k.o "${args[@]}"


# A body that comes out other than its stub: the time of day in host code.
mkdir timed && cd timed
printf '#include <cstdio>\nvoid when() { std::printf("%%s\\n", __TIME__); }\n__global__ void k() {}\n' > t.cu
"$FASTCUDA" gen --out graph -- "$NVCC" -c t.cu -o t.o -arch=sm_80
ninja -C graph > first.log
sleep 1.1
rm t.o
ninja -C graph > removed.log
host_source=$(find graph -name t.cudafe1.cpp)
changed_body_goes() { [ -f t.o ] && [ ! -e "$host_source" ] && ninja -C graph > again.log && grep -q CUDAFE again.log; }
check "a regenerated body other than its stub goes, and its producer runs again" changed_body_goes
cd ..

# cicc's PTX where ptxas alone reads it (an object without PTX, as for
# CMake's `80-real`): a stub too, a block less; a ptxas flag reruns ptxas
# from PTX that cicc's command writes again.
mkdir real && cd real
cp ../k.cu ../scale.h .
args=(-c k.cu -MD -gencode arch=compute_80,code=sm_80)
generate "${args[@]}"
build first
ptx_stub() { is_stub "$(find graph -name 'k*.ptx')"; }
check "where ptxas alone reads the PTX, it is a stub after a build" ptx_stub
fewer_blocks() { echo "  $(kept_blocks) blocks"; [ "$(kept_blocks)" -le 3 ]; }
check "a light TU without PTX in its object keeps at most 3 blocks" fewer_blocks
args+=(-Xptxas -O2)
generate "${args[@]}"
build ptxas_flag
ptxas_flag_regenerates() { ran ptxas_flag PTXAS && ! ran ptxas_flag CICC; }
check "a ptxas flag reruns ptxas from regenerated PTX, not cicc's edge" ptxas_flag_regenerates
check "after a ptxas flag the object equals nvcc's" fresh k.o "${args[@]}"
check "after a ptxas flag a no-op runs nothing" noop
check "after a ptxas flag the PTX is a stub again" ptx_stub
cd ..

rm -rf graph k.o
generate "${args[@]}"
FASTCUDA_KEEP_INTERMEDIATES=1 build kept
kept_whole() { ! is_stub "$(find graph -name k.cudafe1.cpp)" && ! is_stub "$(find graph -name k.cpp1.ii)"; }
check "FASTCUDA_KEEP_INTERMEDIATES keeps the bodies whole" kept_whole

finish

#!/usr/bin/env bash
# Restat pruning against real nvcc: a three-architecture TU built through
# `fastcuda gen`, then edited. A host-only edit must run no ptxas and no
# fatbinary step; an edit of a comment (same lines) must run nothing after
# preprocessing; the objects stay equal to nvcc's.
#
# usage: restat.sh FASTCUDA_BINARY [NVCC]
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/checks.sh" restat "$@"
cd "$scratch"
cat > tu.cu <<'C'
#include <cstdio>
__global__ void scale(float *x, float a) { x[threadIdx.x] *= a; }
// a comment
void report(int n) { std::printf("host side %d\n", n); }
C
args=(-c tu.cu -o tu.o -gencode arch=compute_80,code=sm_80 -gencode arch=compute_86,code=sm_86
      -gencode "arch=compute_90,code=[sm_90,compute_90]")
"$FASTCUDA" gen --out graph -- "$NVCC" "${args[@]}"
ninja -C graph > build1.log

same_as_nvcc() {
  "$NVCC" "${args[@]/tu.o/ref.o}" &&
    objcopy -O binary --only-section=.nv_fatbin tu.o a.fb && objcopy -O binary --only-section=.nv_fatbin ref.o b.fb &&
    cmp -s a.fb b.fb && [ "$(nm tu.o | grep -c ' T ')" = "$(nm ref.o | grep -c ' T ')" ]
}

sed -i 's/host side/host side, edited/' tu.cu
ninja -C graph > host_edit.log
host_edit_prunes() {
  grep -q 'CICC' host_edit.log && grep -q 'HOST_CC' host_edit.log &&
    ! grep -q 'PTXAS' host_edit.log && ! grep -q 'FATBINARY' host_edit.log
}
check "host-only edit: cicc reruns, no ptxas, no fatbinary" host_edit_prunes
check "host-only edit: the object equals nvcc's" same_as_nvcc

sed -i 's|// a comment|// another comment|' tu.cu
ninja -C graph > comment_edit.log
comment_edit_prunes() {
  grep -q 'CPP_HOST' comment_edit.log && ! grep -Eq 'CUDAFE|CICC|PTXAS|FATBINARY|HOST_CC' comment_edit.log
}
check "comment edit: only preprocessing reruns" comment_edit_prunes
check "comment edit: the object equals nvcc's" same_as_nvcc

sed -i 's/\*= a;/*= a + 1.f;/' tu.cu
ninja -C graph > device_edit.log
device_edit_rebuilds() { [ "$(grep -c 'PTXAS' device_edit.log)" -eq 3 ] && grep -q 'FATBINARY' device_edit.log; }
check "device edit: every ptxas and the fatbinary rerun" device_edit_rebuilds
check "device edit: the object equals nvcc's" same_as_nvcc

finish

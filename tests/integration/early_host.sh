#!/usr/bin/env bash
# FASTCUDA_EARLY_HOST=on against real nvcc: the host compile no longer waits
# for the device code, and the object still has nvcc's device code byte for
# byte and nvcc's symbols (whole-program and relocatable objects, -fPIC -g,
# through the launcher and the global graph); relocatable objects
# device-link into a program; fatbinary writes the bytes as a binary file,
# the .fatbin.c only their layout; a fatbin.c of another layout is compiled
# in the slow way, with one line saying so; a device-only edit skips the host
# compile and still gives a clean build's object; host flags `ld -r` cannot join
# (-flto) or that name files after the object (--coverage, -gsplit-dwarf,
# -fstack-usage, the host compiler's -MD) keep nvcc's order, and the files
# are where nvcc writes them. A bad value is an error.
#
# usage: early_host.sh FASTCUDA_BINARY [NVCC]
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/checks.sh" early_host "$@"
cd "$scratch"
mkdir -p a b
cat > whole.cu <<'C'
#include <cstdio>
__global__ void scale(float *x, float s) { x[threadIdx.x] *= s; }
namespace { __device__ int hidden_counter; }
__global__ void count() { atomicAdd(&hidden_counter, 1); }
int main() {
  float *x;
  cudaMalloc(&x, 32 * sizeof(float));
  scale<<<1, 32>>>(x, 2.f);
  count<<<1, 1>>>();
  std::printf("%d\n", cudaDeviceSynchronize());
}
C
cat > a/k.cu <<'C'
__device__ float twice(float x) { return 2.f * x; }
C
cat > b/k.cu <<'C'
extern __device__ float twice(float x);
__global__ void use(float *x) { x[threadIdx.x] = twice(x[threadIdx.x]); }
int main() { use<<<1, 32>>>(nullptr); return 0; }
C
archs=(-gencode arch=compute_80,code=sm_80 -gencode arch=compute_90,code=sm_90)
# One architecture (its SASS and PTX: still two images) where the point is
# the host side or relocatable code, not several cicc runs (CI's 2 cores).
arch=(-arch=sm_80)
cudart=(-L"$(dirname "$NVCC")/../lib64" -lcudart)

# --- through the launcher: whole-program objects, with and without -fPIC -g
"$NVCC" "${archs[@]}" -c whole.cu -o whole_nvcc.o
FASTCUDA_EARLY_HOST=on "$FASTCUDA" "$NVCC" "${archs[@]}" -c whole.cu -o whole.o
check "launcher: device code and host symbols are nvcc's" same_object whole.o whole_nvcc.o
check "launcher: the object links into a program" g++ whole.o -o whole "${cudart[@]}"
check "launcher: the stub included the placeholder" \
  grep -q '#include ".*early.fatbin.c"' $(find .fastcuda/whole.o -name '*.stub.c')
"$NVCC" "${arch[@]}" -Xcompiler -fPIC -g -c whole.cu -o pic_nvcc.o
FASTCUDA_EARLY_HOST=on "$FASTCUDA" "$NVCC" "${arch[@]}" -Xcompiler -fPIC -g -c whole.cu -o pic.o
check "launcher, -fPIC -g: device code and host symbols are nvcc's" same_object pic.o pic_nvcc.o
check "launcher, -fPIC -g: the object links into a shared library" g++ -shared pic.o -o libpic.so

# --- the graph: the host compile does not wait for the device code
FASTCUDA_EARLY_HOST=on "$FASTCUDA" gen --out graph -- "$NVCC" "${archs[@]}" -c whole.cu -o graph.o >/dev/null
early=$(expanded_manifest graph/build.ninja | grep -Eo '^build [^:]*\.early\.o' | cut -d' ' -f2)
inputs_of() { ninja -C graph -t inputs "$1"; }
check "graph: one early host object" test -n "$early"
check "graph: the early host compile reads neither cubins nor fatbinary's output" \
  bash -c "! ninja -C graph -t inputs '$early' | grep -Eq '\.cubin$|/whole\.fatbin\.c$|\.ptx$'"
check "graph: the object needs the fatbin and the early object" \
  bash -c "ninja -C graph -t inputs '$scratch/graph.o' | grep -q '\.cubin$' && ninja -C graph -t inputs '$scratch/graph.o' | grep -qF '$early'"
ninja -C graph > graph.log 2>&1
check "graph: device code and host symbols are nvcc's" same_object graph.o whole_nvcc.o
fatbin_c=$(find graph -name 'whole.fatbin.c' -print -quit)
check "graph: fatbinary wrote the bytes as a binary file, the .fatbin.c only their layout" \
  bash -c "test -s '${fatbin_c%.c}' && test \$(grep -c '^\".quad ' '$fatbin_c') -eq 1 && ! grep -q 'not laid out' graph.log"

# --- a fatbinary whose fatbin.c has another layout: compiled again with it, said once
cat > other_fatbinary <<SH
#!/bin/sh
"$(dirname "$NVCC")/fatbinary" "\$@" || exit
for word; do case "\$word" in --embedded-fatbin=*) sed -i '1i /* another layout */' "\${word#*=}" ;; esac; done
SH
chmod +x other_fatbinary
sed -i "s#-- fatbinary #-- $scratch/other_fatbinary #" graph/build.ninja
ninja -C graph > relayout.log 2>&1
check "another layout: one line says so" test "$(grep -c 'is not laid out as FASTCUDA_EARLY_HOST expects' relayout.log)" -eq 1
check "another layout: the object is still nvcc's" same_object graph.o whole_nvcc.o
sed -i "s#-- $scratch/other_fatbinary #-- fatbinary #" graph/build.ninja

# --- a device-only edit skips the host compile; a host edit does not
sed -i 's/x\[threadIdx.x\] \*= s;/x[threadIdx.x] *= s + 1.f;/' whole.cu
ninja -C graph > device_edit.log
check "device edit: cudafe++ and the device chain rerun" grep -q 'CICC .*whole.cu' device_edit.log
check "device edit: the host compile is skipped (its source came out the same)" \
  bash -c "grep -q 'EMBED_FATBIN' device_edit.log && ! grep -q 'HOST_CC' device_edit.log"
cp graph.o incremental.o
ninja -C graph -t clean >/dev/null && ninja -C graph >/dev/null
check "device edit: the object equals a clean build's, byte for byte" cmp -s graph.o incremental.o
sed -i 's/std::printf("%d\\n"/std::printf("status %d\\n"/' whole.cu
check "host edit: the host compile reruns" bash -c "ninja -C graph > host_edit.log; grep -q HOST_CC host_edit.log"

# --- relocatable device code through a compile database: nvcc's objects, one program
for tu in a b; do "$NVCC" -rdc=true "${arch[@]}" -c $tu/k.cu -o $tu/k_nvcc.o; done
rdc_compile_database "${arch[@]}"
FASTCUDA_EARLY_HOST=on "$FASTCUDA" build --compdb compile_commands.json --out rdc >/dev/null
check "rdc: two EMBED_FATBIN edges" test "$(grep -c ': EMBED_FATBIN ' rdc/build.ninja)" -eq 2
check "rdc: device code and host symbols are nvcc's (a)" same_object a/k.o a/k_nvcc.o
check "rdc: device code and host symbols are nvcc's (b)" same_object b/k.o b/k_nvcc.o
check "rdc: the objects device-link into one program" \
  bash -c "'$NVCC' ${arch[*]} -dlink a/k.o b/k.o -o dlink.o && g++ a/k.o b/k.o dlink.o -o program ${cudart[*]}"

# --- host flags that `ld -r` cannot join keep nvcc's order
FASTCUDA_EARLY_HOST=on "$FASTCUDA" gen --out lto -- "$NVCC" "${arch[@]}" -Xcompiler -flto -c whole.cu -o lto.o >/dev/null
check "-flto: no early host compile" bash -c "! grep -q ': EMBED_FATBIN ' lto/build.ninja && ninja -C lto >/dev/null"
beside_object() {  # HOST_FLAGS SUFFIX: the launcher writes side/o.SUFFIX, as nvcc does
  rm -rf side && mkdir side &&
    (cd side && FASTCUDA_EARLY_HOST=on "$FASTCUDA" "$NVCC" "${arch[@]}" -Xcompiler "$1" -c ../whole.cu -o o.o) &&
    test -f "side/o.$2" && test -z "$(find side/.fastcuda -name "*.$2")"
}
check "--coverage: the notes beside the object" beside_object --coverage gcno
check "-gsplit-dwarf: the .dwo beside the object" beside_object -g,-gsplit-dwarf dwo
check "-fstack-usage: the .su beside the object" beside_object -fstack-usage su
check "the host compiler's -MD: its depfile beside the object" beside_object -MD d
bad_value() {
  ! FASTCUDA_EARLY_HOST=yes "$FASTCUDA" gen --out bad -- "$NVCC" -c whole.cu -o bad.o 2> bad.err &&
    grep -q "FASTCUDA_EARLY_HOST must be on or off, not yes" bad.err
}
check "a bad FASTCUDA_EARLY_HOST is an error that says so" bad_value
finish

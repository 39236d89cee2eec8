#!/usr/bin/env bash
# Records the nvcc --dryrun transcripts that the unit tests read. Run from any
# directory; needs nvcc. The transcripts hold this machine's paths, which the
# tests do not depend on.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
nvcc="${NVCC:-nvcc}"
# Record outside /tmp so that tests can tell nvcc temporaries from the source path.
work="$(mktemp -d "$here/.record.XXXXXX")"
trap 'rm -rf "$work"' EXIT
cd "$work"
printf '__global__ void k(int *p) { p[0] = 1; }\n' > kernel.cu
cp kernel.cu host.cpp

record() {  # NAME ARGS...
  local name="$1"; shift
  # The recording directory becomes /src/project, the directory the tests
  # pretend nvcc ran in, so that no path of this machine is committed.
  "$nvcc" --dryrun "$@" 2>&1 >/dev/null | sed "s#$work#/src/project#g" > "$here/$name.dryrun" || true
  printf '%s\t%s\n' "$name" "$*" >> "$here/COMMANDS.tsv.new"
}

: > "$here/COMMANDS.tsv.new"
record single_arch -c kernel.cu -o kernel.o -arch=sm_80
record multi_gencode -c kernel.cu -o kernel.o -gencode arch=compute_80,code=sm_80 \
  -gencode 'arch=compute_90,code=[sm_90,compute_90]' -gencode arch=compute_100,code=sm_100
record ptx_only -c kernel.cu -o kernel.o -gencode arch=compute_80,code=sm_80 \
  -gencode arch=compute_90,code=compute_90
record depfile -c kernel.cu -o obj/kernel.o -arch=sm_80 -MD -MT obj/kernel.o -MF obj/kernel.o.d
record rdc -rdc=true -c kernel.cu -o kernel.o -arch=sm_80
record device_c -dc kernel.cu -o kernel.o -arch=sm_80
record dlink -dlink kernel.o -o dlink.o -arch=sm_80
record debug_G -G -c kernel.cu -o kernel.o -arch=sm_80
record ptx -ptx kernel.cu -o kernel.ptx -arch=sm_80
record cubin -cubin kernel.cu -o kernel.cubin -arch=sm_80
record x_cu -x cu -c host.cpp -o host.o -arch=sm_80
record threads -c kernel.cu -o kernel.o -arch=sm_80 --threads 2
mv "$here/COMMANDS.tsv.new" "$here/COMMANDS.tsv"
# What fatbinary embeds in the host object (FASTCUDA_EARLY_HOST checks its layout).
"$nvcc" -keep -c kernel.cu -o kernel.o -arch=sm_80 && cp kernel.fatbin.c "$here/whole.fatbin.c"
"$nvcc" -keep -rdc=true -c kernel.cu -o kernel.o -arch=sm_80 && cp kernel.fatbin.c "$here/relocatable.fatbin.c"
# ... and what it writes without images: FastCuda's layout probe (LayoutProbeCommand).
probe() {  # DRYRUN LAYOUT: runs the transcript's fatbinary line without its --image3 words
  local line
  line=$(sed -n 's/^#\$ fatbinary //p' "$here/$1.dryrun" |
         sed -E "s/\"?--image3=[^ ]*//g; s#--embedded-fatbin=\"[^\"]*\"#--embedded-fatbin=\"$here/$2.probe.fatbin.c\"#")
  eval "\"$(dirname "$(command -v "$nvcc")")/fatbinary\" $line"
}
probe single_arch whole
probe rdc relocatable

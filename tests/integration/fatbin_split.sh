#!/usr/bin/env bash
# The split fatbinary against real nvcc: where a TU's fatbinary compresses
# the images of two architectures or more, FastCuda runs it once per image
# and stitches the entries behind one header (fatbin_split.h). The fatbin
# in the object must be nvcc's, byte for byte, across the matrix of shapes
# the split accepts (flags of different kinds share a case): each
# --compress-mode, --no-compress, no flag, -Xfatbin options nvcc
# passes, PTX-only targets, code=[sm_X,compute_X], arch-specific targets
# (sm_90a), CMake's -real/-virtual
# style, -rdc (__nv_relfatbin), -G, -lineinfo, LTO-IR, another
# --cicc-cmdline (-use_fast_math); shapes outside it
# (one architecture, an -Xfatbin option not proved) run fatbinary whole, and
# still give nvcc's bytes. An edit of one architecture's code recompresses
# that architecture's image alone; a one-image fatbin that is no fatbin
# makes the stitch run fatbinary whole. (The launcher, early host and the
# device launchers run the split in early_host.sh, flag_matrix.sh,
# launchers.sh and reapi_steps.sh, whose TUs have two architectures.)
#
# usage: fatbin_split.sh FASTCUDA_BINARY [NVCC]
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/checks.sh" fatbin_split "$@"
cd "$scratch"
cat > k.cu <<'C'
template <int N> __global__ void scale(float *x) { x[threadIdx.x] *= N; }
template __global__ void scale<2>(float *);
template __global__ void scale<3>(float *);
C
two=(-gencode arch=compute_80,code=sm_80 -gencode 'arch=compute_90,code=[sm_90,compute_90]')
# Flags of different kinds share a case (each case costs a compile here and
# one in nvcc): a flag the split mishandles still fails its case.
declare -A cases=(
  [no_flag]="${two[*]}"
  [compress_default]="${two[*]} --compress-mode=default"
  [compress_size]="${two[*]} --compress-mode=size"
  # -use_fast_math: another --cicc-cmdline for fatbinary to record
  [compress_speed_fast_math]="${two[*]} --compress-mode=speed -use_fast_math"
  [compress_balance_lineinfo]="${two[*]} --compress-mode=balance -lineinfo"
  [ptx_only_no_compress]="-gencode arch=compute_80,code=compute_80 -gencode arch=compute_90,code=compute_90 --no-compress"
  [arch_specific_compress_none]="-gencode arch=compute_80,code=sm_80 -gencode arch=compute_90a,code=[sm_90a,compute_90a] --compress-mode=none"
  [real_virtual_xfatbin_compress_all]="--generate-code=arch=compute_80,code=[sm_80] --generate-code=arch=compute_90,code=[compute_90] -Xfatbin=-compress-all"
  [rdc]="${two[*]} -rdc=true --compress-mode=size"
  [G]="${two[*]} -G"
  [lto]="-gencode arch=compute_80,code=lto_80 -gencode arch=compute_90,code=lto_90 -rdc=true"
  [one_arch]="-arch=sm_80 --compress-mode=size"
  [xfatbin_unproved]="${two[*]} -Xfatbin=-compress=true"
)
whole=(one_arch xfatbin_unproved)  # fatbinary runs whole: nothing to gain, or not proved

# Every case in one graph (`fastcuda build`), nvcc's references beside it
# (-G again where the graph's differs: nvcc's -G fatbins differ from run to
# run on some machines). The references are `nvcc -fatbin`'s, with the same
# flags: the same fatbinary command on the same images, whose bytes are the
# object's section (.nv_fatbin, or __nv_relfatbin for -rdc), without the host
# side (preprocessing, cudafe++, gcc: half of nvcc's time here).
{
  echo '['
  sep=
  for name in "${!cases[@]}"; do
    printf '%s{"directory": "%s", "file": "k.cu", "output": "%s.o", "command": "%s %s -c k.cu -o %s.o"}\n' \
      "$sep" "$scratch" "$name" "$NVCC" "${cases[$name]}" "$name"
    sep=,
  done
  echo ']'
} > db.json
mkdir -p ref ref2
for name in "${!cases[@]}"; do echo "$NVCC ${cases[$name]} -fatbin k.cu -o ref/$name.fatbin"; done > references.sh
xargs -P 2 -d '\n' -I{} sh -c {} < references.sh > references.log 2>&1 &
references=$!
check "fastcuda build of every case" "$FASTCUDA" build --compdb db.json --out graph
check "nvcc's references" wait "$references"

fatbin_of() {  # OBJECT FILE: the object's fatbin section
  objcopy -O binary --only-section=.nv_fatbin --only-section=__nv_relfatbin "$1" "$2" && [ -s "$2" ]
}
same_fatbin() {  # OBJECT REFERENCE: REFERENCE an object, or nvcc's .fatbin
  local reference=$2
  if [[ $2 != *.fatbin ]]; then fatbin_of "$2" "$2.fatbin" && reference=$2.fatbin || return 1; fi
  fatbin_of "$1" "$1.fatbin" && [ -s "$reference" ] && cmp "$1.fatbin" "$reference"
}
split_happened() {  # NAME: the graph compressed the TU's images one by one
  [ -n "$(find graph/tu -path "*/$1.o-*" -name '*.image.fatbin' -print -quit)" ]
}
ran_whole() { ! split_happened "$1"; }
# NAME: fatbinary run whole on the graph's own images writes the `.fatbin.c`
# the stitch wrote, and the fatbin in the object: the split's claim, also
# where nvcc's images are not reproducible (-G).
stitch_is_whole_fatbinary() {
  local tu=$1 edge work argv word args=()
  edge=$(expanded_manifest graph/build.ninja | grep -A3 -E "^build [^:]*/$tu\.o-[0-9a-f]+/k\.fatbin\.c: FATBIN_STITCH") ||
    return 1
  work=$(sed -nE '1s#^build ([^:]*)/k\.fatbin\.c: .*#\1#p' <<< "$edge")
  argv=$(sed -n 's/^  argv = -- //p' <<< "$edge")
  eval "set -- $argv"
  for word; do
    case $word in
      fatbinary) args+=("$(dirname "$NVCC")/fatbinary") ;;
      --embedded-fatbin=*) args+=("--embedded-fatbin=whole.fatbin.c" "--create=whole.fatbin") ;;
      *) args+=("$word") ;;
    esac
  done
  "${args[@]}" && cmp whole.fatbin.c "$work/k.fatbin.c" && fatbin_of "$tu.o" object.fatbin &&
    cmp whole.fatbin object.fatbin
}
for name in $(printf '%s\n' "${!cases[@]}" | sort); do
  if [[ " ${whole[*]} " == *" $name "* ]]; then
    check "$name: fatbinary ran whole" ran_whole "$name"
  else
    check "$name: fatbinary ran per image" split_happened "$name"
    check "$name: the stitch wrote what fatbinary run whole writes" stitch_is_whole_fatbinary "$name"
  fi
  if [ "$name" = G ] && ! same_fatbin G.o ref/G.fatbin > /dev/null &&
    "$NVCC" ${cases[G]} -fatbin k.cu -o ref2/G.fatbin && ! cmp -s ref/G.fatbin ref2/G.fatbin; then
    echo "note: nvcc's own -G fatbins differ from run to run here"
  else
    check "$name: the fatbin is nvcc's" same_fatbin "$name.o" "ref/$name.fatbin"
  fi
done

# An edit of one architecture's code: its image alone is compressed again.
cat > arch.cu <<'C'
__global__ void scale(float *x) {
#if __CUDA_ARCH__ == 900
  x[threadIdx.x] *= 9.f;
#else
  x[threadIdx.x] *= 8.f;
#endif
}
C
edit=(-gencode arch=compute_80,code=sm_80 -gencode arch=compute_90,code=sm_90 --compress-mode=size -c arch.cu)
"$FASTCUDA" gen --out edit -- "$NVCC" "${edit[@]}" -o arch.o > /dev/null
ninja -C edit > edit1.log
sed -i 's/9\.f/7.f/' arch.cu
mark=$(graph_log_mark edit)
ninja -C edit > edit2.log
check "one arch edited: its image is compressed again" graph_ran edit "$mark" 'FATBINARY sm_90'
check "one arch edited: the other's is not" bash -c "! grep -q 'FATBINARY sm_80' edit2.log"
check "one arch edited: the object is nvcc's" fresh arch.o "${edit[@]}"

# A one-image fatbin that is no fatbin: the stitch says so and runs fatbinary whole.
image=$(find edit -name '*sm_90*.image.fatbin' -o -name 'arch.compute_90.cubin.image.fatbin' | head -1)
printf 'not a fatbin' > "$image"
ninja -C edit > corrupt.log 2>&1 || true
check "a corrupt image fatbin: the stitch says why and runs fatbinary whole" \
  grep -q "cannot join the images' fatbins (not a fatbin: 12 bytes, less than its header); running fatbinary whole" corrupt.log
check "a corrupt image fatbin: the object is nvcc's" same_fatbin arch.o reference.o  # the edited source's
finish

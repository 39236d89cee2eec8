#!/usr/bin/env bash
# FastCuda's Ninja manifest reader against Ninja itself: for every manifest
# in tests/manifests (CMake's, Meson's and PyTorch's styles, and one of
# Ninja's corners), the commands the reader evaluates (tests/tools/
# manifest_commands) must be the ones `ninja -t commands` prints for every
# target, as many times each. Run by CTest with Debian's Ninja (1.11) and by
# tests/pypi_tools.sh with PyPI's newest; it needs no nvcc.
#
# usage: manifest_reader.sh MANIFEST_COMMANDS_BINARY
set -euo pipefail
# checks.sh takes the tool under test as its FASTCUDA.
source "$(dirname "${BASH_SOURCE[0]}")/checks.sh" manifest_reader "$@"
manifests=$(realpath "$(dirname "${BASH_SOURCE[0]}")/../manifests")
echo "ninja $(ninja --version) at $(command -v ninja)"

same_commands() {  # DIR: the reader's commands and Ninja's, each sorted, are equal
  local targets=()
  # `-t targets all` prints "PATH: RULE"; a path may hold spaces.
  mapfile -t targets < <(cd "$1" && ninja -t targets all | sed 's/: [^:]*$//')
  (cd "$1" && ninja -t commands "${targets[@]}") | sort > "$scratch/ninja.txt"
  (cd "$1" && "$FASTCUDA" build.ninja) | sort > "$scratch/reader.txt"
  [ -s "$scratch/ninja.txt" ] && diff "$scratch/ninja.txt" "$scratch/reader.txt"
}
for dir in "$manifests"/*/; do
  check "$(basename "$dir"): the reader's commands are Ninja's" same_commands "$dir"
done
finish

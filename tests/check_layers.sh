#!/usr/bin/env bash
# The layers of FastCuda's source, each including only the layers below it:
#   src/cli -> ninja-gen, src/views -> src/plan -> src/graph -> src/nvcc -> src/base
#   src/remote, the remote client's step wrapper (a program of its own), includes none
# (ninja-gen renders and src/views reads what the plan made; neither
# includes the other). Prints every #include that points up or across, and
# fails if there is one; folder-level cycles are then impossible.
#
# usage: check_layers.sh FASTCUDA_SOURCE_DIR
set -euo pipefail
cd "$1"
rank() {  # FOLDER: its layer's height; shared ranks may not include each other
  case "$1" in
    src/base | src/remote) echo 0 ;; src/nvcc) echo 1 ;; src/graph) echo 2 ;; src/plan) echo 3 ;;
    ninja-gen | src/views) echo 4 ;; src/cli) echo 5 ;; *) echo "" ;;
  esac
}
violations=0 files=0
while IFS= read -r file; do
  files=$((files + 1))
  from=$(dirname "$file")
  from_rank=$(rank "$from")
  [ -n "$from_rank" ] || { echo "not in a layer: $file"; violations=$((violations + 1)); continue; }
  while IFS= read -r included; do
    to=$(dirname "$included")
    to_rank=$(rank "$to")
    [ -n "$to_rank" ] || continue  # generated headers, tests' own helpers
    if [ "$to" != "$from" ] && [ "$to_rank" -ge "$from_rank" ]; then
      echo "$file includes $included: $to is not below $from"
      violations=$((violations + 1))
    fi
  done < <(sed -n 's/^#include "\([^"]*\)".*/\1/p' "$file")
done < <(find src ninja-gen -name '*.h' -o -name '*.cc' | sort)
echo "layers: $files files, $violations includes that point up or across"
[ "$violations" -eq 0 ] && [ "$files" -gt 0 ]

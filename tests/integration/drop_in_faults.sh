#!/usr/bin/env bash
# Where a drop-in must behave like what it replaces:
#  compdb     `build --compdb`: an entry whose `arguments` is a string, whose
#             `command` is a number, is no entry left out: exit 2, the entry
#             named; an entry whose directory is missing names it.
#
# usage: drop_in_faults.sh FASTCUDA_BINARY [NVCC]
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/checks.sh" drop_in_faults "$@"
cd "$scratch"
mkdir -p src
for i in 1 2 3; do
  printf '__global__ void k%d(float *x) { x[threadIdx.x] *= %d; }\nvoid run%d(float *x) { k%d<<<1, 32>>>(x); }\n' \
    "$i" "$i" "$i" "$i" > "src/t$i.cu"
done

# --- compdb: malformed entries --------------------------------------------------
rejected() {  # NAME ENTRY MESSAGE-RE: a database of one good entry and ENTRY: exit 2, MESSAGE-RE said
  local rc=0
  mkdir -p "db-$1"
  printf '[{"directory": "%s", "file": "src/t1.cu", "command": "%s -arch=sm_80 -c src/t1.cu -o db-%s/t1.o"},\n %s]\n' \
    "$scratch" "$NVCC" "$1" "$2" > "db-$1/compile_commands.json"
  "$FASTCUDA" build --compdb "db-$1/compile_commands.json" --out "db-$1/graph" > "db-$1.log" 2>&1 || rc=$?
  [ "$rc" -eq 2 ] && grep -Eq "$3" "db-$1.log" || { echo "  status $rc:"; sed 's/^/    /' "db-$1.log"; return 1; }
}
check "compdb: arguments given as a string: exit 2, the entry named" rejected arguments-string \
  "{\"directory\": \"$scratch\", \"file\": \"src/t2.cu\", \"arguments\": \"$NVCC -c src/t2.cu -o t2.o\"}" \
  'compile_commands\.json: entry 1: "arguments" is not an array of strings'
check "compdb: command given as a number: exit 2, the entry named" rejected command-number \
  "{\"directory\": \"$scratch\", \"file\": \"src/t2.cu\", \"command\": 7}" \
  'compile_commands\.json: entry 1: "command" is not a string'
check "compdb: an entry's directory is missing: exit 2, the directory named" rejected missing-directory \
  "{\"directory\": \"$scratch/gone\", \"file\": \"src/t2.cu\", \"command\": \"$NVCC -arch=sm_80 -c $scratch/src/t2.cu -o t2.o\"}" \
  "in $scratch/gone: No such file or directory"

finish

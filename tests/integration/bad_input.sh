#!/usr/bin/env bash
# Bad input gets a clear error and the right exit code: nvcc not found, flags
# nvcc rejects (its own message and exit code), an output directory that
# cannot be written, a missing or malformed compile database (file and
# position named, exit 2), an entry whose source is missing, entries whose
# commands try to run something else. `--version` is no program to launch.
#
# usage: bad_input.sh FASTCUDA_BINARY [NVCC]
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/checks.sh" bad_input "$@"
cd "$scratch"
printf '__global__ void k(int *p) { p[0] = 1; }\n' > ok.cu

nvcc_not_found() {
  local rc=0
  "$FASTCUDA" /nonexistent/nvcc -c ok.cu -o ok.o 2> err.txt || rc=$?
  [ "$rc" -ne 0 ] && grep -q "fastcuda: cannot run /nonexistent/nvcc" err.txt
}
check "nvcc not found: a clear error" nvcc_not_found
check "--version is fastcuda's own, not a program to launch" \
  bash -c "'$FASTCUDA' --version | grep -Eq '^fastcuda [0-9]+\.[0-9]+\.[0-9]+ \(commit ([0-9a-f]{7,}(-dirty)?|unknown)\)$'"

same_as_nvcc_for_bad_flags() {
  local want=0 got=0
  "$NVCC" --no-such-flag -c ok.cu -o ok.o 2> want.txt || want=$?
  "$FASTCUDA" "$NVCC" --no-such-flag -c ok.cu -o ok.o 2> got.txt || got=$?
  [ "$want" -ne 0 ] && [ "$want" -eq "$got" ] && cmp -s want.txt got.txt
}
check "flags nvcc rejects: nvcc's own message and exit code" same_as_nvcc_for_bad_flags

unwritable_output() {
  local rc=0
  touch not_a_dir
  "$FASTCUDA" "$NVCC" -c ok.cu -o not_a_dir/ok.o -arch=sm_80 2> err.txt || rc=$?
  [ "$rc" -ne 0 ] && grep -q "not_a_dir" err.txt
}
check "an output directory that cannot be made: the error names it" unwritable_output

missing_database() {
  local rc=0
  "$FASTCUDA" build --compdb nothere.json --out graph 2> err.txt || rc=$?
  [ "$rc" -eq 2 ] && grep -q "cannot read .*nothere.json" err.txt
}
check "a missing compile database: exit 2, the file named" missing_database

malformed_database() {
  local rc=0
  printf '[\n  {"directory": "/", "file": "ok.cu",, }\n]\n' > bad.json
  "$FASTCUDA" build --compdb bad.json --out graph 2> err.txt || rc=$?
  [ "$rc" -eq 2 ] && grep -q "bad.json: not valid JSON: .*line 2, column 38" err.txt
}
check "a malformed compile database: exit 2, file and position named" malformed_database

missing_source() {
  local rc=0
  printf '[{"directory": "%s", "file": "gone.cu", "command": "%s -c gone.cu -o gone.o -arch=sm_80"}]\n' \
    "$scratch" "$NVCC" > gone.json
  "$FASTCUDA" build --compdb gone.json --out graph > out.txt 2>&1 || rc=$?
  [ "$rc" -ne 0 ] && grep -q "gone.cu" out.txt && [ ! -e gone.o ]
}
check "an entry whose source is missing: the build fails naming it, no object" missing_source

foreign_commands_not_run() {
  printf '[{"directory": "%s", "file": "ok.cu", "command": "touch pwned-other"},
 {"directory": "%s", "file": "ok.cu", "arguments": ["sh", "-c", "touch pwned-sh"]},
 {"directory": "%s", "file": "ok.cu",
  "command": "%s -c ok.cu -o inj.o -arch=sm_80 ; touch pwned-semicolon && touch pwned-and > pwned-redirect"}]\n' \
    "$scratch" "$scratch" "$scratch" "$NVCC" > foreign.json
  "$FASTCUDA" build --compdb foreign.json --out foreign > foreign.log 2>&1 || true
  grep -q "2 other entries left out" foreign.log && ! compgen -G 'pwned*' > /dev/null
}
check "a compile database runs nothing but its nvcc entries' own commands, words quoted" foreign_commands_not_run

finish

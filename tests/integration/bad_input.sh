#!/usr/bin/env bash
# Bad input gets a clear error and the right exit code: nvcc not found, flags
# nvcc rejects (its own message and exit code), an output directory that
# cannot be written, a missing or malformed compile database (file and
# position named, exit 2), an entry whose source is missing, entries whose
# commands try to run something else, two entries with one output, job
# counts that are no number, a memory budget that is no size (the launcher
# rejects it as build does), a directory even root cannot write, a full disk,
# a TMPDIR that is no directory.
# `--version` is no program to launch; `--help` lists every sub-command
# people type, and a first word that is none is the compiler to launch.
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

help_lists_public_commands() {
  local command
  "$FASTCUDA" --help > help.txt || return 1
  grep -q "^  fastcuda \[--graph DIR | --build-graph DIR\] \[LAUNCHER...\] NVCC ARGS...$" help.txt &&
    grep -q "^environment: FASTCUDA_JOBS" help.txt || return 1
  for command in gen build trace report table graph --version; do
    grep -Eq -e "^  fastcuda $command( |$)" help.txt || return 1
  done
  ! grep -Eq "fastcuda (step|merge-depfiles|write-text|toolchain-stamp|write-fatbin-placeholder)" help.txt
}
check "--help lists every public sub-command and the launcher form, not the ones Ninja's edges run" \
  help_lists_public_commands

unknown_first_word() {  # not a sub-command, not nvcc: launched as the compiler, as before
  local rc=0
  "$FASTCUDA" frobnicate -c ok.cu -o unknown.o 2> err.txt || rc=$?
  [ "$rc" -eq 2 ] && grep -q "^fastcuda: cannot run frobnicate: No such file or directory$" err.txt &&
    [ ! -e unknown.o ]
}
check "an unknown first word that is not nvcc: the compiler that cannot run, exit 2" unknown_first_word

same_as_nvcc_for_bad_flags() {
  local want=0 got=0
  "$NVCC" --no-such-flag -c ok.cu -o ok.o 2> want.txt || want=$?
  "$FASTCUDA" "$NVCC" --no-such-flag -c ok.cu -o ok.o 2> got.txt || got=$?
  [ "$want" -ne 0 ] && [ "$want" -eq "$got" ] && cmp -s want.txt got.txt
}
check "flags nvcc rejects: nvcc's own message and exit code" same_as_nvcc_for_bad_flags

unusable_tmpdir() {  # TMPDIR: nvcc's message (but its process id) and exit code
  local want=0 got=0
  TMPDIR=$1 "$NVCC" -c ok.cu -o ok.o -arch=sm_80 2> want.txt || want=$?
  TMPDIR=$1 "$FASTCUDA" "$NVCC" -c ok.cu -o ok.o -arch=sm_80 2> got.txt || got=$?
  [ "$want" -ne 0 ] && [ "$want" -eq "$got" ] && grep -q tmpxft_ want.txt &&
    cmp -s <(sed 's/tmpxft_[0-9a-f]*_/tmpxft_/' want.txt) <(sed 's/tmpxft_[0-9a-f]*_/tmpxft_/' got.txt)
}
touch tmp-file
check "TMPDIR names no directory: nvcc's message and exit code" unusable_tmpdir "$scratch/no-such-dir"
check "TMPDIR names a file: nvcc's message and exit code" unusable_tmpdir "$scratch/tmp-file"

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

one_output_twice() {
  local rc=0
  printf '[{"directory": "%s", "file": "ok.cu", "command": "%s -c ok.cu -o twice.o -arch=sm_80"},
 {"directory": "%s", "file": "other.cu", "command": "%s -c other.cu -o ./twice.o -arch=sm_80"}]\n' \
    "$scratch" "$NVCC" "$scratch" "$NVCC" > twice.json
  "$FASTCUDA" build --compdb twice.json --out twice > err.txt 2>&1 || rc=$?
  [ "$rc" -eq 2 ] && grep -q "the entries for ok.cu and other.cu both write $scratch/twice.o" err.txt &&
    ! grep -q "multiple rules" err.txt
}
check "two entries with one output: exit 2, both named, not Ninja's message" one_output_twice

bad_job_counts() {
  local count rc
  for count in abc -1 2x ""; do
    rc=0
    "$FASTCUDA" build --compdb twice.json --out jobs -j "$count" 2> err.txt || rc=$?
    [ "$rc" -eq 2 ] && grep -q "fastcuda: -j must be a number of jobs (0: one per core), not '$count'" err.txt ||
      return 1
  done
  rc=0
  FASTCUDA_JOBS=-1 "$FASTCUDA" "$NVCC" -c ok.cu -o jobs.o -arch=sm_80 2> err.txt || rc=$?
  [ "$rc" -eq 2 ] && grep -q "FASTCUDA_JOBS must be a number of jobs" err.txt && [ ! -e jobs.o ]
}
check "job counts that are no number (-j abc, -j -1, FASTCUDA_JOBS=-1): exit 2, a clear message" bad_job_counts

bad_memory_budget() {  # the launcher must not take it for a path Ninja cannot name and run nvcc
  local rc=0 message="fastcuda: FASTCUDA_MEMORY_BUDGET is not a size: garbage"
  FASTCUDA_MEMORY_BUDGET=garbage "$FASTCUDA" "$NVCC" -c ok.cu -o budget.o -arch=sm_80 2> err.txt || rc=$?
  [ "$rc" -eq 2 ] && grep -qx "$message" err.txt && [ ! -e budget.o ] || return 1
  rc=0
  printf '[{"directory": "%s", "file": "ok.cu", "command": "%s -c ok.cu -o budget.o -arch=sm_80"}]\n' \
    "$scratch" "$NVCC" > budget.json
  FASTCUDA_MEMORY_BUDGET=garbage "$FASTCUDA" build --compdb budget.json --out budget 2> err.txt || rc=$?
  [ "$rc" -eq 2 ] && grep -qx "$message" err.txt
}
check "a memory budget that is no size: the launcher and build reject it alike, exit 2" bad_memory_budget

same_as_nvcc_for_unwritable_directory() {  # /proc: no file can be made there, not even by root
  local want=0 got=0
  "$NVCC" -c ok.cu -o /proc/fastcuda-test.o -arch=sm_80 2> want.txt || want=$?
  "$FASTCUDA" "$NVCC" -c ok.cu -o /proc/fastcuda-test.o -arch=sm_80 2> got.txt || got=$?
  [ "$want" -ne 0 ] && [ "$want" -eq "$got" ] && cmp -s want.txt got.txt
}
check "an output directory that exists but cannot be written: nvcc's message and exit code" \
  same_as_nvcc_for_unwritable_directory

full_disk() {  # so full that FastCuda's own first write fails
  local rc=0
  dd if=/dev/zero of=full/filler bs=4k 2> /dev/null || true
  "$FASTCUDA" "$NVCC" -c ok.cu -o full/ok.o -arch=sm_80 > err.txt 2>&1 || rc=$?
  [ "$rc" -ne 0 ] && grep -q "^fastcuda: cannot write .*: No space left on device$" err.txt && [ ! -e full/ok.o ]
}
mkdir -p full
if mount -t tmpfs -o size=96k tmpfs full 2> /dev/null; then
  check "a full disk: the build fails saying so (errno named), no object" full_disk
  umount full
else
  echo "SKIP a full disk: this machine does not let the test mount a small tmpfs"
fi

finish

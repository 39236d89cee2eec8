#!/usr/bin/env bash
# Where a drop-in must behave like what it replaces:
#  two        two `fastcuda ninja -C DIR` at once in one directory (an IDE's
#             background build beside a terminal's) both succeed, objects
#             equal nvcc's: the second waits, saying so.
#  SIGINT     `fastcuda ninja` started as a script's background job (SIGINT
#             inherited as ignored) stops on kill -INT as plain ninja does:
#             "interrupted by user", a failing status, no object.
#  FAILED     `fastcuda ninja -k 0` with a TU that does not compile: the lines
#             plain ninja prints for it (`FAILED: bad.o`, the user's nvcc
#             command) head its errors, the other object is built.
#  compdb     `build --compdb`: an entry whose `arguments` is a string, whose
#             `command` is a number, is no entry left out: exit 2, the entry
#             named; an entry whose directory is missing names it.
#
# usage: drop_in_faults.sh FASTCUDA_BINARY [NVCC]
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
source "$here/checks.sh" drop_in_faults "$@"
cd "$scratch"
mkdir -p src
for i in 1 2 3; do
  printf '__global__ void k%d(float *x) { x[threadIdx.x] *= %d; }\nvoid run%d(float *x) { k%d<<<1, 32>>>(x); }\n' \
    "$i" "$i" "$i" "$i" > "src/t$i.cu"
done

write_manifest() {  # DIR SOURCE...: a build.ninja compiling each src/SOURCE.cu to SOURCE.o with nvcc
  local dir=$1 source
  shift
  mkdir -p "$dir"
  cat > "$dir/build.ninja" <<N
nvcc = $NVCC
rule cu
  command = \$nvcc -MD -MF \$out.d -arch=sm_80 -c \$in -o \$out
  depfile = \$out.d
  deps = gcc
  description = NVCC \$out
N
  for source in "$@"; do echo "build $source.o: cu $scratch/src/$source.cu" >> "$dir/build.ninja"; done
}

# --- two fastcuda ninja at once in one directory ------------------------------
# The second waits on FastCuda's own lock, taken before it runs any Ninja;
# each build is then any fastcuda ninja's, which the second pass's other
# tests build with its tools: the first pass only.
two_at_once() {
  local first second rc1=0 rc2=0 i
  write_manifest two t1 t2 t3
  mkdir -p ref
  for i in 1 2 3; do "$NVCC" -arch=sm_80 -c "src/t$i.cu" -o "ref/t$i.o" || return 1; done
  "$FASTCUDA" ninja -C two -j 2 > two.1.log 2>&1 & first=$!
  "$FASTCUDA" ninja -C two -j 2 > two.2.log 2>&1 & second=$!
  wait "$first" || rc1=$?
  wait "$second" || rc2=$?
  [ "$rc1" -eq 0 ] && [ "$rc2" -eq 0 ] ||
    { echo "  status $rc1 and $rc2:"; sed 's/^/    /' two.1.log two.2.log; return 1; }
  for i in 1 2 3; do same_object "two/t$i.o" "ref/t$i.o" || { echo "  t$i.o differs from nvcc's"; return 1; }; done
  cat two.1.log two.2.log | grep -q "another fastcuda ninja is running in $scratch/two; waiting for it to finish"
}
check_any_tools "two: two fastcuda ninja at once in one directory both succeed, the second waits" two_at_once

# --- SIGINT inherited as ignored ------------------------------------------------
cp "$here/slow_tu.cu" src/slow.cu
write_manifest sigint slow
stops_on_sigint() {
  local pid rc=0
  # A script's background job: bash starts it with SIGINT ignored.
  "$FASTCUDA" ninja -C sigint -j 1 > sigint.log 2>&1 &
  pid=$!
  cicc_wrote_temp_file "$pid" || { echo "  no cicc ran"; kill -TERM "$pid"; wait "$pid"; return 1; }
  kill -INT "$pid"
  wait "$pid" || rc=$?
  [ "$rc" -ne 0 ] && grep -q "interrupted by user" sigint.log && [ ! -e sigint/slow.o ] ||
    { echo "  status $rc:"; sed 's/^/    /' sigint.log; return 1; }
}
check "SIGINT: fastcuda ninja as a background job stops on kill -INT, as ninja does" stops_on_sigint

# --- FAILED: names the user's object and command ----------------------------------
printf '__global__ void k(float *x) { x[0] = ; }\n' > src/bad.cu
write_manifest failed t1 bad
write_manifest failed-plain t1 bad
failed_like_ninja() {
  local rc=0 plain_lines
  ninja -C failed-plain -k 0 > failed-plain.log 2>&1 || true
  # FAILED: [code=N] bad.o  (Ninja 1.13 and later give the code), then the command
  plain_lines=$(grep -A1 -E '^FAILED: (\[code=[0-9]+\] )?bad\.o $' failed-plain.log) ||
    { echo "  plain ninja printed no FAILED line for bad.o"; return 1; }
  "$FASTCUDA" ninja -C failed -k 0 > failed.log 2>&1 || rc=$?
  [ "$rc" -ne 0 ] && [ -f failed/t1.o ] && [ ! -e failed/bad.o ] &&
    grep -A1 -E '^FAILED: (\[code=[0-9]+\] )?bad\.o $' failed.log | grep -Fxq -- "$(tail -1 <<<"$plain_lines")" &&
    grep -A2 -E '^FAILED: (\[code=[0-9]+\] )?bad\.o $' failed.log | grep -q 'bad\.cu.*error' ||
    { echo "  status $rc, plain ninja printed:"; sed 's/^/    /' <<<"$plain_lines"; sed 's/^/    /' failed.log; return 1; }
}
check "FAILED: fastcuda ninja -k 0 names the user's object and nvcc command, as ninja does" failed_like_ninja

# --- compdb: malformed entries --------------------------------------------------
# FastCuda's reader rejects the database before it writes a manifest or runs
# any Ninja: the first pass only.
rejected() {  # NAME ENTRY MESSAGE-RE: a database of one good entry and ENTRY: exit 2, MESSAGE-RE said
  local rc=0
  mkdir -p "db-$1"
  printf '[{"directory": "%s", "file": "src/t1.cu", "command": "%s -arch=sm_80 -c src/t1.cu -o db-%s/t1.o"},\n %s]\n' \
    "$scratch" "$NVCC" "$1" "$2" > "db-$1/compile_commands.json"
  "$FASTCUDA" build --compdb "db-$1/compile_commands.json" --out "db-$1/graph" > "db-$1.log" 2>&1 || rc=$?
  [ "$rc" -eq 2 ] && grep -Eq "$3" "db-$1.log" || { echo "  status $rc:"; sed 's/^/    /' "db-$1.log"; return 1; }
}
check_any_tools "compdb: arguments given as a string: exit 2, the entry named" rejected arguments-string \
  "{\"directory\": \"$scratch\", \"file\": \"src/t2.cu\", \"arguments\": \"$NVCC -c src/t2.cu -o t2.o\"}" \
  'compile_commands\.json: entry 1: "arguments" is not an array of strings'
check_any_tools "compdb: command given as a number: exit 2, the entry named" rejected command-number \
  "{\"directory\": \"$scratch\", \"file\": \"src/t2.cu\", \"command\": 7}" \
  'compile_commands\.json: entry 1: "command" is not a string'
check_any_tools "compdb: an entry's directory is missing: exit 2, the directory named" rejected missing-directory \
  "{\"directory\": \"$scratch/gone\", \"file\": \"src/t2.cu\", \"command\": \"$NVCC -arch=sm_80 -c $scratch/src/t2.cu -o t2.o\"}" \
  "in $scratch/gone: No such file or directory"

finish

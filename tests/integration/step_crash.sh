#!/usr/bin/env bash
# A sub-step that crashes: the host compiler (a -ccbin wrapper) kills itself
# with SIGSEGV on the final host compile, after printing a line. Through the
# launcher and through `fastcuda build --compdb`: a non-zero exit, a report
# naming the signal, the step's command and its output, no object; once the
# compiler works again the same command builds nvcc's object (nothing stale
# was trusted).
#
# usage: step_crash.sh FASTCUDA_BINARY [NVCC]
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/checks.sh" step_crash "$@"
cd "$scratch"
mkdir cc
cat > cc/g++ <<'SH'
#!/usr/bin/env bash
# Crashes on the host compile of a .cudafe1.cpp while $CRASH_FLAG exists.
for word in "$@"; do
  if [[ $word == *.cudafe1.cpp && -e $CRASH_FLAG ]]; then
    echo "wrapper: compiling $word" >&2
    kill -SEGV $$
  fi
done
exec g++ "$@"
SH
chmod +x cc/g++
export CRASH_FLAG=$scratch/crash-now
printf '__global__ void k(int *p) { p[threadIdx.x] = 7; }\nvoid l(int *p) { k<<<1, 32>>>(p); }\n' > k.cu
flags=(-ccbin "$scratch/cc/g++" -arch=sm_80 -c k.cu)
"$NVCC" "${flags[@]}" -o ref.o

reports_crash() {  # LOG OBJECT: the signal, the step's program and file, its output
  grep -q "fastcuda: step killed by signal 11 (Segmentation fault): $scratch/cc/g++ .*-c .*k\.cudafe1\.cpp -o .*$2" "$1" &&
    grep -q "^wrapper: compiling .*k\.cudafe1\.cpp$" "$1"
}

launcher_crash() {
  local rc=0
  touch "$CRASH_FLAG"
  "$FASTCUDA" "$NVCC" "${flags[@]}" -o launched.o > launcher.log 2>&1 || rc=$?
  [ "$rc" -eq 139 ] && reports_crash launcher.log launched.o && [ ! -e launched.o ]
}
check "launcher: exit 139, the signal, the step's command and output reported, no object" launcher_crash

launcher_recovers() {
  rm -f "$CRASH_FLAG"
  "$FASTCUDA" "$NVCC" "${flags[@]}" -o launched.o && same_object launched.o ref.o
}
check "launcher: the same command with a working compiler gives nvcc's object" launcher_recovers

printf '[{"directory": "%s", "file": "k.cu", "command": "%s %s -o graphed.o"}]\n' \
  "$scratch" "$NVCC" "${flags[*]}" > db.json
graph_crash() {
  local rc=0
  touch "$CRASH_FLAG"
  "$FASTCUDA" build --compdb db.json --out graph > graph.log 2>&1 || rc=$?
  [ "$rc" -ne 0 ] && reports_crash graph.log graphed.o && grep -q "^FAILED: .*graphed\.o" graph.log &&
    [ ! -e graphed.o ] && ninja -C graph -n | grep 'HOST_CC k\.cu' > /dev/null
}
check "build --compdb: fails, the signal, the step's command and output reported, no object" graph_crash

graph_recovers() {
  rm -f "$CRASH_FLAG"
  "$FASTCUDA" build --compdb db.json --out graph > graph2.log 2>&1 && same_object graphed.o ref.o
}
check "build --compdb: the next build with a working compiler gives nvcc's object" graph_recovers

finish

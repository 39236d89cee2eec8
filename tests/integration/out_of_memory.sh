#!/usr/bin/env bash
# A step that runs out of memory beside other steps is no failed build: it
# runs again alone once the running steps have ended, one line says so, and
# the objects are nvcc's. Every step's program runs through a logger (the
# device and host launchers, and a -ccbin wrapper for the preprocessing)
# that records when it started and ended; cicc of one TU's compute_80 says
# "out of memory" and fails on its first run only, or on every run. No
# cgroup here: memory_cgroup.sh has the kernel's out-of-memory killer.
#
# usage: out_of_memory.sh FASTCUDA_BINARY [NVCC]
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/checks.sh" out_of_memory "$@"
cd "$scratch"
unset FASTCUDA_MEMORY_BUDGET
export STEP_LOG=$scratch/steps.log OOM_ONCE=$scratch/oom-once OOM_ALWAYS=$scratch/oom-always
cat > logrun <<'SH'
#!/usr/bin/env bash
# Runs its command, with a line in $STEP_LOG for its start and its end (ns).
# cicc writing a.compute_80.ptx says it ran out of memory: once (until
# $OOM_ONCE exists), or while $OOM_ALWAYS exists.
what="$(basename "$1") ${*: -1}"
echo "start $(date +%s%N) $$ $what" >> "$STEP_LOG"
trap 'echo "end $(date +%s%N) $$ $what" >> "$STEP_LOG"' EXIT
if [[ $(basename "$1") == cicc && " $* " == *" -o a.compute_80.ptx "* ]]; then
  sleep 0.5  # beside the other TU's steps
  if [ -e "$OOM_ALWAYS" ] || [ ! -e "$OOM_ONCE" ]; then
    touch "$OOM_ONCE"
    echo "LLVM ERROR: out of memory" >&2
    exit 1
  fi
fi
"$@"
SH
chmod +x logrun
mkdir cc
printf '#!/usr/bin/env bash\nexec %q g++ "$@"\n' "$scratch/logrun" > cc/g++
chmod +x cc/g++
for tu in a b; do printf '__global__ void k%s(float *x) { x[threadIdx.x] *= 3; }\n' "$tu" > $tu.cu; done
flags=(-ccbin "$scratch/cc/g++" -gencode arch=compute_80,code=sm_80 -gencode arch=compute_86,code=sm_86)
for tu in a b; do "$NVCC" "${flags[@]}" -c $tu.cu -o $tu.ref.o; done
printf '[{"directory": "%s", "file": "a.cu", "command": "%s %s -c a.cu -o a.o"},\n' "$scratch" "$NVCC" "${flags[*]}" > db.json
printf ' {"directory": "%s", "file": "b.cu", "command": "%s %s -c b.cu -o b.o"}]\n' "$scratch" "$NVCC" "${flags[*]}" >> db.json
export FASTCUDA_DEVICE_LAUNCHER=$scratch/logrun FASTCUDA_HOST_LAUNCHER=$scratch/logrun
rm -f "$STEP_LOG"
build_status=0
"$FASTCUDA" build --compdb db.json --out graph -j 4 > build.log 2>&1 || build_status=$?

builds_nvcc_objects() { [ "$build_status" -eq 0 ] && same_object a.o a.ref.o && same_object b.o b.ref.o; }
check "build: a step out of memory beside others is no failure; the objects are nvcc's" builds_nvcc_objects
says_what_happened() {
  [ "$(grep -c 'ran out of memory' build.log)" -eq 1 ] &&
    grep -q '^fastcuda: logrun (.*a\.compute_80\.ptx) ran out of memory beside other steps: it said "LLVM ERROR: out of memory"; ran it again alone, once they had ended: it succeeded$' build.log
}
check "build: one line says what happened" says_what_happened
ran_alone() {  # the cicc's second run overlaps no other program's run, and others ran beside its first
  awk '$1 == "start" { start[$3] = $2; what[$3] = $4 " " $5 } $1 == "end" { end[$3] = $2 }
       END {
         for (p in start) if (what[p] == "cicc a.compute_80.ptx") { runs++; if (start[p] > last) { last = start[p]; alone = p } }
         if (runs != 2) exit 1
         for (p in start) if (p != alone && start[p] < end[alone] && end[p] > start[alone]) exit 1
         for (p in start) if (what[p] != "cicc a.compute_80.ptx" && start[p] < last) before++
         exit before == 0
       }' "$STEP_LOG"
}
check "build: the rerun ran alone, none of the other steps' programs beside it" ran_alone
learned_peak() {  # the first run's peak (a lower bound, should the second fail too), then the second's
  [ "$(grep -c "/a\.compute_80\.cudafe1\.c	[1-9][0-9]*	" graph/step-memory.tsv)" -eq 2 ]
}
check "build: the step's peak memory is in the log the next generation plans with" learned_peak

touch "$OOM_ALWAYS"
rm -f a.o b.o graph/tu/*/a.compute_80.ptx
build_status=0
"$FASTCUDA" build --compdb db.json --out graph -j 4 > fails.log 2>&1 || build_status=$?
fails_again_alone() {
  [ "$build_status" -ne 0 ] && [ ! -e a.o ] && grep -q '^FAILED: .*a\.compute_80\.ptx' fails.log &&
    grep -q 'ran it again alone, once they had ended: it exited with status 1 there too$' fails.log &&
    grep -q '^LLVM ERROR: out of memory$' fails.log
}
check "build: out of memory alone too fails the build, with the program's own message" fails_again_alone

rm -f "$OOM_ALWAYS" "$OOM_ONCE" a.o
launcher_status=0
"$FASTCUDA" "$NVCC" "${flags[@]}" -c a.cu -o a.o > launcher.log 2>&1 || launcher_status=$?
launcher_reruns() {
  [ "$launcher_status" -eq 0 ] && same_object a.o a.ref.o &&
    grep -q '^fastcuda: logrun (.*a\.compute_80\.ptx) ran out of memory beside other steps: .*it succeeded$' launcher.log
}
check "launcher: the same, the line among what nvcc's steps printed" launcher_reruns

finish

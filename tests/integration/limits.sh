#!/usr/bin/env bash
# The defaults from the machine's limits, with no cgroup experiment (one
# could make a shared machine swap): the affinity (taskset) stands in for a
# CPU quota. `fastcuda report` says where the memory budget and the job
# count came from; `fastcuda build` and `fastcuda ninja` give Ninja no more
# jobs than the CPUs the process may run on. Ninja runs through a stand-in
# that records its arguments and adds -n: nothing compiles, nvcc runs only
# its dryrun.
#
# usage: limits.sh FASTCUDA_BINARY [NVCC]
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/checks.sh" limits "$@"
cd "$scratch"
unset MAKEFLAGS FASTCUDA_JOBS FASTCUDA_MEMORY_BUDGET
printf '__global__ void k(float *x) { x[threadIdx.x] *= 2; }\n' > k.cu
args=(-c k.cu -o k.o -arch=sm_80)

"$FASTCUDA" gen --out graph -- "$NVCC" "${args[@]}"
budget_from_the_machine() {
  "$FASTCUDA" report graph |
    grep -Eq "^planned with: memory budget [0-9.]+ GiB: (85 % of MemAvailable in /proc/meminfo|95 % of /.* less the cgroup's usage)$"
}
check "report: the budget is 85 % of MemAvailable or 95 % of a cgroup's, named" budget_from_the_machine
FASTCUDA_MEMORY_BUDGET=2G "$FASTCUDA" gen --out graph -- "$NVCC" "${args[@]}"
budget_configured() { "$FASTCUDA" report graph | grep -q "memory budget 2.0 GiB: FASTCUDA_MEMORY_BUDGET$"; }
check "report: a configured budget is named as such" budget_configured

if [ "$(getconf _NPROCESSORS_ONLN)" -gt 1 ]; then
  taskset -c 0 "$FASTCUDA" gen --out graph -- "$NVCC" "${args[@]}"
  jobs_from_affinity() { "$FASTCUDA" report graph | grep -q "^ *jobs 1: the CPUs the process may run on (its affinity)$"; }
  check "report: one CPU allowed, one job, from the affinity" jobs_from_affinity

  real_ninja=$(command -v ninja)
  printf '#!/bin/sh\necho "$*" >> %s/ninja-args\nexec %s -n "$@"\n' "$scratch" "$real_ninja" > recording-ninja
  chmod +x recording-ninja
  export FASTCUDA_NINJA=$scratch/recording-ninja
  printf '[{"directory": "%s", "file": "k.cu", "command": "%s -c k.cu -o k.o -arch=sm_80"}]\n' \
    "$scratch" "$NVCC" > compile_commands.json
  taskset -c 0 "$FASTCUDA" build --compdb compile_commands.json --out built > build.log 2>&1 || true
  build_one_job() { grep -q -- '-C ' ninja-args && ! grep -- '-C ' ninja-args | grep -v -- '-j 1\b'; }
  check "build: one CPU allowed, Ninja runs one job" build_one_job

  mkdir gen && printf 'rule touch\n  command = touch $out\nbuild out.txt: touch\n' > gen/build.ninja
  : > ninja-args
  taskset -c 0 "$FASTCUDA" ninja -C gen > ninja.log 2>&1 || true
  ninja_default_of_one_cpu() { grep -q -- '-j 2\b' ninja-args; }  # Ninja's own default for one CPU
  check "fastcuda ninja: one CPU allowed, Ninja's default for one CPU" ninja_default_of_one_cpu
  : > ninja-args
  taskset -c 0 "$FASTCUDA" ninja -C gen -j 5 > ninja.log 2>&1 || true
  given_jobs_kept() {  # the build's Ninja (a dry run of the generator's manifest may come first)
    local build
    build=$(grep -- '-f \.fastcuda/build\.ninja' ninja-args) &&
      grep -q -- '-j 5' <<<"$build" && [ "$(grep -o -- '-j' <<<"$build" | wc -l)" -eq 1 ]
  }
  check "fastcuda ninja: a -j given is the only one" given_jobs_kept
else
  echo "SKIP the affinity checks: one CPU online"
fi

finish

#!/usr/bin/env bash
# In a memory cgroup too small for plain `ninja -j` of a project, FastCuda's
# build finishes with nvcc's objects: with its defaults (the budget from the
# cgroup's limit), and with a budget far above it (as /proc/meminfo's was,
# which the host's memory sets), where the out-of-memory killer ends steps
# that then run again alone. Six small TUs are made memory-heavy cheaply: a
# -ccbin stand-in for g++ holds HOG_MB MiB for a second in the host
# preprocessing of a .cu (nvcc's first step), then runs g++. Skipped, in one
# line, where no memory cgroup can be made (cgroup.sh: v1 or v2).
#
# usage: memory_cgroup.sh FASTCUDA_BINARY [NVCC]
set -euo pipefail
here=$(dirname "${BASH_SOURCE[0]}")
source "$here/checks.sh" memory_cgroup "$@"
source "$here/cgroup.sh"
cd "$scratch"
unset FASTCUDA_MEMORY_BUDGET FASTCUDA_JOBS MAKEFLAGS
limit_mib=640 tus=6
if ! cgroup_make "fastcuda-test-$$" $((limit_mib << 20)); then
  echo "SKIP memory_cgroup: $CGROUP_WHY"
  cd / && rm -rf "$scratch"
  exit 0
fi
echo "cgroup v$CGROUP_VERSION: $CGROUP_DIR, limit $limit_mib MiB"

mkdir cc
cat > cc/hog.c <<'C'
// g++, but the host preprocessing of a .cu (-E, no __CUDA_ARCH__) first
// holds HOG_MB MiB for HOG_MS ms.
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
int main(int argc, char **argv) {
  int preprocess = 0, cu = 0, device = 0;
  for (int i = 1; i < argc; i++) {
    size_t n = strlen(argv[i]);
    preprocess |= strcmp(argv[i], "-E") == 0;
    cu |= n > 3 && strcmp(argv[i] + n - 3, ".cu") == 0;
    device |= strncmp(argv[i], "-D__CUDA_ARCH__=", 16) == 0;
  }
  const char *mb = getenv("HOG_MB"), *ms = getenv("HOG_MS");
  if (preprocess && cu && !device && mb) {
    size_t bytes = (size_t)atol(mb) << 20;
    char *volatile held = malloc(bytes); /* volatile: no compiler drops it */
    if (held) memset(held, 1, bytes);
    usleep(1000 * (ms ? atoi(ms) : 1000));
    free(held);
  }
  argv[0] = "g++";
  execvp("g++", argv);
  return 127;
}
C
gcc -O0 -o cc/g++ cc/hog.c
for i in $(seq $tus); do printf '__global__ void k%d(float *x) { x[threadIdx.x] *= %d; }\n' "$i" "$i" > k$i.cu; done
flags="-ccbin $scratch/cc/g++ -arch=sm_80"
for i in $(seq $tus); do "$NVCC" $flags -c k$i.cu -o k$i.ref.o; done
{
  printf 'rule nvcc\n  command = %s %s -MD -MF $out.d -c $in -o $out\n  depfile = $out.d\n  deps = gcc\n' "$NVCC" "$flags"
  for i in $(seq $tus); do printf 'build k%d.o: nvcc %s/k%d.cu\n' "$i" "$scratch" "$i"; done
} > build.ninja
for dir in plain defaults unbounded; do mkdir $dir && cp build.ninja $dir/; done
export HOG_MB=150 HOG_MS=1000

kills=$(cgroup_oom_kills)
plain_status=0
cgroup_run ninja -C plain -j $tus > plain.log 2>&1 || plain_status=$?
plain_killed() { [ "$plain_status" -ne 0 ] && [ "$(cgroup_oom_kills)" -gt "$kills" ]; }
check "plain ninja -j $tus in $limit_mib MiB: the out-of-memory killer ends nvcc's steps, the build fails" plain_killed

same_objects() {  # DIR: every object is nvcc's
  local i
  for i in $(seq $tus); do same_object "$1/k$i.o" "k$i.ref.o" || return 1; done
}
kills=$(cgroup_oom_kills)
cgroup_reset_peak
defaults_status=0
cgroup_run "$FASTCUDA" ninja -C defaults -j $tus > defaults.log 2>&1 || defaults_status=$?
defaults_fit() {
  [ "$defaults_status" -eq 0 ] && same_objects defaults && [ "$(cgroup_oom_kills)" -eq "$kills" ] &&
    ! grep -q 'ran out of memory' defaults.log
}
check "fastcuda ninja -j $tus, its defaults: nvcc's objects, nothing killed" defaults_fit
echo "peak of that build: $(( $(cgroup_peak_bytes || echo 0) >> 20 )) MiB of $limit_mib"
budget_from_cgroup() {
  "$FASTCUDA" report defaults/.fastcuda |
    grep -q "memory budget .*$CGROUP_DIR/memory\.\(max\|limit_in_bytes\) less the cgroup's usage"
}
check "report: the budget came from the cgroup's limit" budget_from_cgroup

kills=$(cgroup_oom_kills)
unbounded_status=0
FASTCUDA_MEMORY_BUDGET=64G cgroup_run "$FASTCUDA" ninja -C unbounded -j $tus > unbounded.log 2>&1 ||
  unbounded_status=$?
alone_lines() { grep "^fastcuda: .* ran out of memory beside other steps: " unbounded.log || true; }
killed_then_alone() {
  [ "$unbounded_status" -eq 0 ] && same_objects unbounded && [ "$(cgroup_oom_kills)" -gt "$kills" ] &&
    [ -n "$(alone_lines)" ] &&
    ! alone_lines | grep -v "killed by SIGKILL by the kernel's out-of-memory killer; ran it again alone, once they had ended: it succeeded$"
}
check "fastcuda ninja -j $tus, a budget of 64G: steps killed, each again alone; nvcc's objects" killed_then_alone
learned() {  # each host preprocessing killed: its peak alone (and the killed run's) in the memory log
  local killed output
  killed=$(alone_lines | sed -n 's/^fastcuda: g++ (\(.*\.cpp4\.ii\)) ran out of memory .*/\1/p')
  [ -n "$killed" ] || return 1
  while IFS= read -r output; do
    awk -F'\t' -v o="$output" -v least=$((HOG_MB << 10)) '$1 == o { n++; if ($2 > most) most = $2 }
      END { exit !(n >= 2 && most >= least) }' unbounded/.fastcuda/step-memory.tsv || return 1
  done <<< "$killed"
}
check "each host preprocessing killed: its whole peak is in the memory log the next generation reads" learned

finish

#!/usr/bin/env bash
# FastCuda's Ninja under a parent make (issue 6): `fastcuda build` run by
# `make -jN` passes make's -jN to Ninja, and the steps never exceed it; with
# a FIFO jobserver and a Ninja that can join it (1.13 and later) it passes no
# -j at all; FASTCUDA_JOBS wins over both. A recording stand-in for Ninja
# (FASTCUDA_NINJA) says which version it is and passes the build on to the
# real Ninja, or builds nothing where only its arguments matter
# (RECORD_ONLY=1).
#
# usage: jobserver.sh FASTCUDA_BINARY [NVCC]
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/checks.sh" jobserver "$@"
cd "$scratch"
entries=()
for i in 1 2 3 4; do
  printf '__global__ void k%s(float *x) { x[threadIdx.x] *= %s.f; }\n' "$i" "$i" > "tu$i.cu"
  entries+=("{\"directory\": \"$scratch\", \"file\": \"$scratch/tu$i.cu\", \"output\": \"tu$i.o\",
    \"command\": \"$NVCC -arch=sm_80 -c tu$i.cu -o tu$i.o\"}")
done
(IFS=,; echo "[${entries[*]}]") > compile_commands.json
real_ninja=$(command -v ninja)
cat > ninja <<SH
#!/bin/sh
# Reports version 1.\$NINJA_MINOR when asked (the real Ninja's without it: a
# log header of another version makes it start the log over), records every
# other call's arguments.
if [ "\$1" = --version ]; then
  if [ -n "\${NINJA_MINOR:-}" ]; then echo "1.\$NINJA_MINOR.0"; else "$real_ninja" --version; fi
  exit 0
fi
echo "\$*" >> "$scratch/ninja.calls"
[ -z "\${RECORD_ONLY:-}" ] || exit 0
exec "$real_ninja" "\$@"
SH
chmod +x ninja
export FASTCUDA_NINJA="$scratch/ninja"
printf 'all:\n\t+"$(FASTCUDA)" build --compdb compile_commands.json --out graph\n' > Makefile

most_at_once() { steps_at_once graph/.ninja_log; }
fresh() { rm -rf graph ninja.calls tu*.o; }

# make -jJOBS runs the build: Ninja gets -j JOBS and at most MOST steps run
# at once; on failure, what Ninja got and the log say why.
under_make() {
  local jobs=$1 most=$2
  fresh
  make -j"$jobs" FASTCUDA="$FASTCUDA" > make.log 2>&1 && grep -q -- "-j $jobs" ninja.calls &&
    [ "$(most_at_once)" -le "$most" ] || {
    echo "  Ninja's calls: $(paste -sd';' ninja.calls 2>/dev/null); at most $(most_at_once) at once; make's output and the log:"
    sed 's/^/    /' make.log graph/.ninja_log 2>/dev/null
    return 1
  }
}
check "make -j1: Ninja gets -j 1, and one step runs at a time (not one per core)" under_make 1 1
check "make -j3: Ninja gets make's -j 3 and never runs more steps" under_make 3 3
fifo_join() {
  fresh
  MAKEFLAGS="-j4 --jobserver-auth=fifo:$scratch/no-such-fifo" NINJA_MINOR=13 \
    "$FASTCUDA" build --compdb compile_commands.json --out graph --priority-ladder off >/dev/null 2>&1 || true
  [ -s ninja.calls ] && ! grep -q -- '-j' ninja.calls
}
check "FIFO jobserver and Ninja 1.13: no -j, Ninja joins the pool itself" fifo_join
fifo_old_ninja() {
  fresh
  MAKEFLAGS="-j4 --jobserver-auth=fifo:$scratch/no-such-fifo" NINJA_MINOR=11 RECORD_ONLY=1 \
    "$FASTCUDA" build --compdb compile_commands.json --out graph >/dev/null 2>&1 && grep -q -- '-j 4' ninja.calls
}
check "FIFO jobserver and Ninja 1.11: make's -j 4" fifo_old_ninja
explicit_jobs_win() {
  fresh
  sed -i 's|build --compdb|build -j 1 --compdb|' Makefile &&
    RECORD_ONLY=1 make -j3 FASTCUDA="$FASTCUDA" > make.log 2>&1 && grep -q -- '-j 1' ninja.calls && ! grep -q -- '-j 3' ninja.calls
}
check "an explicit -j wins over make's" explicit_jobs_win
finish

#!/usr/bin/env bash
# Never a stale object: what the launcher and `fastcuda build` write is what
# nvcc writes now from the current sources, headers, flags, response files
# and environment. Each case edits something the way a careless or hostile
# user does (an older mtime, a new header that shadows another, a changed
# CPATH, an edited response file, a killed or concurrent FastCuda, nohup,
# an entry that nvcc runs whole)
# and compares the object with a fresh nvcc's. The cases whose sources end
# up the same share nvcc's object (same_object compares device code and host
# symbols, which neither the include path nor the file's name changes).
#
# usage: stale_objects.sh FASTCUDA_BINARY [NVCC]
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
source "$here/checks.sh" stale_objects "$@"
cd "$scratch"
arch=(-arch=sm_80)

launch() { "$FASTCUDA" "$NVCC" "$@"; }
kernel() {  # FILE VALUE: a kernel that stores VALUE
  printf '__global__ void k(int *p) { *p = %s; }\nvoid run(int *p) { k<<<1, 1>>>(p); }\n' "$2" > "$1"
}
value_header() {  # DIR VALUE: DIR/v.h defines VALUE
  mkdir -p "$1" && printf '#define VALUE %s\n' "$2" > "$1/v.h"
}
value_kernel() {  # HEADER: k.cu stores the VALUE that HEADER defines
  printf '#include %s\n__global__ void k(int *p) { *p = VALUE; }\nvoid run(int *p) { k<<<1, 1>>>(p); }\n' "$1" > k.cu
}
# nvcc's objects of a kernel that stores 1, and 2: what every case below
# that ends with such a kernel (its value from the source, or from whichever
# v.h it includes) must have written. One compile each instead of one a case.
kernel ref1.cu 1 && "$NVCC" "${arch[@]}" -c ref1.cu -o ref1.o
kernel ref2.cu 2 && "$NVCC" "${arch[@]}" -c ref2.cu -o ref2.o

# Each case runs in a directory of its own, in a subshell.
# 1. A source replaced by one with an older mtime (a restore, cp -p, tar x).
# The launcher's second case goes on from its first: the object it wrote is
# kept, and the source goes back to the first text, older still.
older_source() (  # launcher|graph, then: remove the object or not
  mkdir -p "older-$1" && cd "older-$1"
  if [ "$2" = removed ]; then
    kernel k.cu 1 && touch -d 2020-01-01 k.cu
    compile_as "$1" "${arch[@]}" -c k.cu -o k.o && kernel k.cu 2 && touch -d 2021-01-01 k.cu && rm k.o &&
      compile_as "$1" "${arch[@]}" -c k.cu -o k.o && same_object k.o ../ref2.o
  else
    [ -f k.o ] && kernel k.cu 1 && touch -d 2019-01-01 k.cu &&
      compile_as "$1" "${arch[@]}" -c k.cu -o k.o && same_object k.o ../ref1.o
  fi
)
check "launcher: a source restored with an older mtime, object removed: fresh" older_source launcher removed
check "launcher: a source restored with an older mtime, called again: fresh" older_source launcher keep
check "build: a source restored with an older mtime, object removed: fresh" older_source graph removed

# 2. A new header that shadows another (-IA -IB, then A/v.h appears).
shadowing_header() (  # launcher|graph
  mkdir -p "shadow-$1" && cd "shadow-$1"
  value_header B 1 && mkdir -p A && value_kernel '"v.h"'
  local flags=("${arch[@]}" -IA -IB -c k.cu)
  compile_as "$1" "${flags[@]}" -o k.o && value_header A 2 && rm k.o && compile_as "$1" "${flags[@]}" -o k.o &&
    same_object k.o ../ref2.o
)
check "launcher: a new header shadows another, object removed: fresh" shadowing_header launcher
check "build: a new header shadows another, object removed: fresh" shadowing_header graph

# 2b. The same while the architectures change: the intermediates of sm_90's
# steps, left from the first build, must not come back when sm_90 does.
shadowing_header_other_archs() (
  mkdir -p shadow-archs && cd shadow-archs
  value_header B 1 && mkdir -p A && value_kernel '"v.h"'
  local sm90=(-gencode arch=compute_80,code=sm_80 -gencode arch=compute_90,code=sm_90 -IA -IB -c k.cu)
  local sm86=(-gencode arch=compute_80,code=sm_80 -gencode arch=compute_86,code=sm_86 -IA -IB -c k.cu)
  graph_build "${sm90[@]}" -o k.o && graph_build "${sm86[@]}" -o k.o && value_header A 2 && rm k.o &&
    graph_build "${sm86[@]}" -o k.o && graph_build "${sm90[@]}" -o k.o && fresh k.o "${sm90[@]}"
)
check "build: a new header shadows another, object removed, while the architectures change: fresh" \
  shadowing_header_other_archs

# 3. The environment nvcc's sub-steps read: CPATH names another directory.
# The launcher's second case goes on from its first, back to inc1.
changed_cpath() (  # launcher|graph, then: remove the object or not
  mkdir -p "cpath-$1" && cd "cpath-$1"
  if [ "$1-$2" = launcher-keep ]; then
    [ -f k.o ] && CPATH=$PWD/inc1 compile_as "$1" "${arch[@]}" -c k.cu -o k.o && same_object k.o ../ref1.o
    return
  fi
  value_header inc1 1 && value_header inc2 2 && value_kernel '<v.h>'
  CPATH=$PWD/inc1 compile_as "$1" "${arch[@]}" -c k.cu -o k.o && { [ "$2" = keep ] || rm k.o; } &&
    CPATH=$PWD/inc2 compile_as "$1" "${arch[@]}" -c k.cu -o k.o && same_object k.o ../ref2.o
)
check "launcher: CPATH changed, object removed: fresh" changed_cpath launcher removed
check "launcher: CPATH changed, called again: fresh" changed_cpath launcher keep
check "build: CPATH changed: fresh" changed_cpath graph keep

# 4. A response file (--options-file) names another include directory.
edited_response_file() (  # launcher|graph
  mkdir -p "rsp-$1" && cd "rsp-$1"
  value_header incA 1 && value_header incB 2 && value_kernel '<v.h>'
  local flags=("${arch[@]}" --options-file o.rsp -c k.cu)
  echo "-IincA" > o.rsp && compile_as "$1" "${flags[@]}" -o k.o && echo "-IincB" > o.rsp &&
    compile_as "$1" "${flags[@]}" -o k.o && same_object k.o ../ref2.o
)
check "launcher: an edited response file: fresh" edited_response_file launcher
check "build: an edited response file: fresh" edited_response_file graph

# A TU that takes seconds, for the cases that stop FastCuda halfway: one
# architecture, its cubin only (a second one, or the PTX, adds CPU to each of
# its builds and no step that these cases stop).
cp "$here/slow_tu.cu" slow.cu
slow=(-gencode arch=compute_80,code=sm_80 -c slow.cu)
"$NVCC" "${slow[@]}" -o slow-reference.o
none_left() {  # TEXT: waits up to 60 s until no process names TEXT; true if none is left
  local i
  for i in $(seq 600); do pgrep -f -- "$1" > /dev/null || return 0; sleep 0.1; done
  return 1
}

# 5. kill -9 of the launcher: nothing it started writes the object later. A
# stopped cicc leaves its bitcode file in TMPDIR (nvcc's, stopped, leaves
# none): the steps give it one of their own in the build tree, and remove it.
killed_launcher() {
  mkdir -p killed killed-tmp && rm -f killed/slow.o
  TMPDIR=$scratch/killed-tmp "$FASTCUDA" "$NVCC" "${slow[@]}" -o killed/slow.o > /dev/null 2>&1 & local pid=$!
  local in_cicc=0
  cicc_wrote_temp_file "$pid" && in_cicc=1
  kill -9 "$pid"
  wait "$pid" 2> /dev/null || true
  [ "$in_cicc" -eq 1 ] && none_left "$scratch/killed" && [ ! -e killed/slow.o ] && empty_dir killed-tmp
}
check "launcher killed with -9 in cicc: no process of it is left, no object, nothing in TMPDIR" killed_launcher

# 6. kill -9 of `fastcuda build`, then an immediate rebuild.
killed_build() {
  local trial
  mkdir -p killed-build
  printf '[{"directory": "%s", "file": "slow.cu", "command": "%s %s -o killed-build/slow.o"}]\n' \
    "$scratch" "$NVCC" "${slow[*]}" > killed-build.json
  for trial in 1 3; do
    rm -rf killed-build/graph killed-build/slow.o
    "$FASTCUDA" build --compdb killed-build.json --out killed-build/graph > /dev/null 2>&1 & local pid=$!
    sleep "$trial"
    { kill -9 "$pid" && wait "$pid"; } 2> /dev/null || true
    "$FASTCUDA" build --compdb killed-build.json --out killed-build/graph > killed-build.log 2>&1 &&
      same_object killed-build/slow.o slow-reference.o || return 1
  done
}
check "build killed with -9, built again at once: succeeds, object equals nvcc's" killed_build

# 7. Three launcher calls for one object at once (started together, they
# overlap without the slow TU: a light one, one architecture, spares CI
# half a minute of CPU; three processes on CI's two cores overlap anyway).
concurrent_calls() (
  local trial pids pid failed
  local flags=("${arch[@]}" -c k.cu)
  mkdir -p concurrent && cd concurrent && kernel k.cu 2 && cp ../ref2.o reference.o || return 1
  for trial in 1 2; do
    rm -f k.o
    pids=()
    for pid in 1 2 3; do
      "$FASTCUDA" "$NVCC" "${flags[@]}" -o k.o > "$pid.log" 2>&1 & pids+=($!)
    done
    failed=0
    for pid in "${pids[@]}"; do wait "$pid" || failed=1; done
    [ "$failed" -eq 0 ] && same_object k.o reference.o || return 1
  done
)
check "three launcher calls for one object at once: all succeed, object equals nvcc's" concurrent_calls

# 8. nohup: a hangup of the launcher's process group does not stop it. The
# hangup comes while a step runs: the host compiler that -ccbin names holds
# the host compile until it is sent, so a light TU does (a compile of the
# slow one costs CI 10 CPU s). It runs the same g++: nvcc's object is ref2.o.
nohup_hangup() (
  local i pid
  mkdir -p nohup && cd nohup && kernel k.cu 2 || return 1
  cat > hold-cc <<SH
#!/bin/sh
case "\$*" in *cudafe1.cpp*) : > "$PWD/held"; while [ ! -e "$PWD/go" ]; do sleep 0.05; done ;; esac
exec "$(command -v g++)" "\$@"
SH
  chmod +x hold-cc
  setsid nohup "$FASTCUDA" "$NVCC" "${arch[@]}" -ccbin "$PWD/hold-cc" -c k.cu -o k.o > out.log 2>&1 & pid=$!
  for i in $(seq 600); do [ -e held ] && break; sleep 0.1; done
  kill -HUP -- "-$pid" 2> /dev/null || kill -HUP "$pid"
  touch go
  [ -e held ] && wait "$pid" && same_object k.o ../ref2.o
)
check "nohup: a hangup of the whole process group, the launcher still finishes like nvcc" nohup_hangup

# 11. SIGTERM: nvcc exits with 255 and leaves no object.
terminated() {
  mkdir -p terminated terminated-tmp && rm -f terminated/slow.o
  TMPDIR=$scratch/terminated-tmp "$FASTCUDA" "$NVCC" "${slow[@]}" -o terminated/slow.o > /dev/null 2>&1 &
  local pid=$!
  local in_cicc=0
  cicc_wrote_temp_file "$pid" && in_cicc=1
  kill -TERM "$pid"
  local status=0
  wait "$pid" || status=$?
  [ "$status" -eq 255 ] && [ "$in_cicc" -eq 1 ] && none_left "$scratch/terminated" && [ ! -e terminated/slow.o ] &&
    empty_dir terminated-tmp
}
check "launcher terminated in cicc: exit status 255 as nvcc's, no process left, no object, nothing in TMPDIR" \
  terminated

# nvcc stopped while it checks its host compiler (its first milliseconds)
# leaves its temporaries in TMPDIR, plain nvcc's and --dryrun's alike; a
# generation runs a dryrun for each command shape, the launcher one for its
# call. Each runs in a TMPDIR of its own, removed however it ends; and a
# dryrun that failed because FastCuda was stopped is no reason to run nvcc
# whole. A host compiler that holds nvcc there (and says each time it does)
# makes the window wide.
cat > hold-cc <<SH
#!/bin/sh
case "\$*" in *tmpxft_*) echo \$\$ >> "$scratch/held"; exec sleep 60 > /dev/null 2>&1 ;; esac
exec "$(command -v g++)" "\$@"
SH
chmod +x hold-cc
kernel held.cu 11
held_call=("$NVCC" -ccbin "$scratch/hold-cc" "${arch[@]}" -c held.cu -o held.o)
printf '[{"directory": "%s", "file": "held.cu", "command": "%s"}]\n' "$scratch" "${held_call[*]}" > held.json
held_then_stopped() {  # SIGNAL FASTCUDA-ARGS...: stops FastCuda once nvcc --dryrun is held; sets status, in_dryrun
  local signal=$1 i pid
  shift
  status=0 in_dryrun=0
  rm -rf held held-tmp held-graph held.o && mkdir held-tmp
  TMPDIR=$scratch/held-tmp "$FASTCUDA" "$@" > held.log 2>&1 & pid=$!
  for i in $(seq 600); do [ -s held ] && break; sleep 0.1; done
  [ -s held ] && [ -n "$(find held-tmp -name 'tmpxft_*' -print -quit)" ] && in_dryrun=1
  kill -"$signal" "$pid"
  { wait "$pid" || status=$?; } 2> /dev/null  # not bash's line for a killed job
  xargs kill < held 2> /dev/null || true
}
stopped_in_dryrun() {  # SIGNAL STATUS FASTCUDA-ARGS...: stopped while nvcc --dryrun is held, FastCuda ends with STATUS
  local expected=$2 status in_dryrun
  held_then_stopped "$1" "${@:3}"
  [ "$in_dryrun" -eq 1 ] && [ "$status" -eq "$expected" ] && [ "$(wc -l < held)" -eq 1 ] && [ ! -e held.o ] &&
    empty_dir held-tmp || {
    echo "  exit status $status, nvcc held $(wc -l < held) times, left in TMPDIR: $(ls -A held-tmp | paste -sd' ')"
    return 1
  }
}
check "build terminated in nvcc --dryrun: stops, runs no nvcc, leaves nothing in TMPDIR" \
  stopped_in_dryrun TERM 255 build --compdb held.json --out held-graph
check "launcher terminated in nvcc --dryrun: exit status 255 as nvcc's, runs no nvcc, leaves nothing in TMPDIR" \
  stopped_in_dryrun TERM 255 "${held_call[@]}"
# FastCuda killed with -9 removes nothing: the next FastCuda to run a dryrun
# removes the directories of processes gone, once a minute old (a live
# process's, and one being written, stay).
killed_dryrun_swept() {
  local status in_dryrun
  held_then_stopped KILL "${held_call[@]}"
  local left=(held-tmp/fastcuda-dryrun-*)
  [ "$in_dryrun" -eq 1 ] && [ "$status" -eq 137 ] && [ "${#left[@]}" -eq 1 ] && [ -d "${left[0]}" ] || {
    echo "  exit status $status, left in TMPDIR: ${left[*]}"
    return 1
  }
  local young="${left[0]%-*}-9" live="held-tmp/fastcuda-dryrun-$$-0"
  mkdir "$young" "$live" && touch -d '2 minutes ago' "${left[0]}" "$live"
  TMPDIR=$scratch/held-tmp "$FASTCUDA" "$NVCC" "${arch[@]}" -c held.cu -o held.o &&
    [ ! -e "${left[0]}" ] && [ -d "$young" ] && [ -d "$live" ] || {
    echo "  left in TMPDIR: $(ls -A held-tmp | paste -sd' ')"
    return 1
  }
}
check "launcher killed in nvcc --dryrun: a later FastCuda removes its directory, not a live process's or a young one" \
  killed_dryrun_swept

# 12. Entries that `fastcuda build` leaves to nvcc whole: -lib, where nvcc is
# asked for a depfile of the headers, and -E, which can write none and so
# runs in every build. A header edit, then a source edit, reach both.
archive_member() {  # ARCHIVE DIR [SOURCE]: extracts the archive into DIR, prints the path of its (SOURCE's) object
  rm -rf "$2" && mkdir -p "$2" && (cd "$2" && ar x "../$1") && ls "$2"/*"${3:+_$3}".o
}
whole_nvcc_builds() {  # MODE OUTPUT VALUE: OUTPUT of `fastcuda build` equals nvcc's of the same command
  # (for -lib, its object equals nvcc's -c object of a kernel storing VALUE)
  graph_build "${arch[@]}" "$1" k.cu -o "$2" || return 1
  if [ "$1" = -lib ]; then
    same_object "$(archive_member "$2" built)" "../ref$3.o"
  else
    "$NVCC" "${arch[@]}" "$1" k.cu -o "reference-$2" && cmp -s "$2" "reference-$2"
  fi
}
whole_nvcc() (  # MODE OUTPUT
  mkdir -p "whole$1" && cd "whole$1"
  value_header inc 1 && value_kernel '"inc/v.h"'
  whole_nvcc_builds "$@" 1 && grep -q "nvcc runs whole for k.cu: nvcc option $1" build.log && value_header inc 2 &&
    whole_nvcc_builds "$@" 2 && sleep 1 && kernel k.cu 1 && whole_nvcc_builds "$@" 1 || return 1
  if [ "$1" = -lib ]; then
    graph_build "${arch[@]}" "$1" k.cu -o "$2" && grep -q "no work to do" build.log
  else
    grep -q "in every build" build.log
  fi
)
check "build: nvcc run whole for -lib: a header, then the source edited: fresh; then no work" whole_nvcc -lib k.a
check "build: nvcc run whole for -E: a header, then the source edited: fresh (it reruns every build)" whole_nvcc -E k.ii
# Two sources in one -lib call (nvcc's depfile would name the last one only),
# the first including the header; then one source whose call writes the
# user's own depfile (-MD -MF), which Ninja reads through FastCuda's copy.
whole_nvcc_lib() (  # two|users
  mkdir -p "whole-lib-$1" && cd "whole-lib-$1"
  value_header inc 1 && value_kernel '"inc/v.h"' && kernel other.cu 5
  local flags=("${arch[@]}" -lib k.cu other.cu)
  [ "$1" = two ] || flags=("${arch[@]}" -lib -MD -MF k.a.d k.cu)
  graph_build "${flags[@]}" -o k.a && value_header inc 2 && graph_build "${flags[@]}" -o k.a &&
    same_object "$(archive_member k.a built k)" ../ref2.o || return 1
  [ "$1" = two ] || { graph_build "${flags[@]}" -o k.a && grep -q "no work to do" build.log && [ -s k.a.d ]; }
)
check "build: nvcc run whole for -lib of two sources, the first's header edited: fresh" whole_nvcc_lib two
check "build: nvcc run whole writing the user's depfile, a header edited: fresh; then no work, the depfile kept" \
  whole_nvcc_lib users

# 13. Line information: ptxas writes the mtime and size of the sources that
# the PTX's line table names into the cubin, so a source touched (or
# restored with an older mtime) whose device code came out the same still
# changes nvcc's object. (Found by stale_walk.py.) The line table names the
# source's absolute path: the launcher and `fastcuda build` compile one
# source (objects kl.o and kg.o) and share nvcc's object of it. The older
# mtime goes on from the touched source's objects, as the launcher's "called
# again" cases above do: they are its first build.
line_table() (  # touched|older: (both compile,) the source is touched, both compile again
  mkdir -p lines && cd lines
  local flags=("${arch[@]}" -lineinfo -c k.cu)
  if [ "$1" = touched ]; then
    printf '#include "t.h"\n__global__ void k(int *p) { *p = 1; }\nint host_tag() { return TAG; }\n' > k.cu &&
      echo '#define TAG 1' > t.h && compile_as launcher "${flags[@]}" -o kl.o && compile_as graph "${flags[@]}" -o kg.o &&
      touch k.cu && echo '#define TAG 2' > t.h  # a host-only edit: the PTX comes out the same
  else
    [ -f kl.o ] && [ -f kg.o ] && touch -d 2020-01-01 k.cu && echo '#define TAG 1' > t.h
  fi || return 1
  compile_as launcher "${flags[@]}" -o kl.o && compile_as graph "${flags[@]}" -o kg.o && fresh kl.o "${flags[@]}"
)
graph_line_table() { same_object lines/kg.o lines/reference.o; }  # right after line_table
check "launcher: -lineinfo, a source touched, its device code the same: fresh" line_table touched
check "build: -lineinfo, a source touched, its device code the same: fresh" graph_line_table
check "launcher: -lineinfo, a source given an older mtime, called again: fresh" line_table older
check "build: -lineinfo, a source given an older mtime, a header edited: fresh" graph_line_table
cubin_line_table() (  # -cubin -lineinfo -MD: ptxas writes the user's file, beside the user's depfile
  mkdir -p cubin-lines && cd cubin-lines
  printf '#include "t.h"\n__global__ void k(int *p) { *p = TAG; }\n' > k.cu && echo '#define TAG 1' > t.h
  local flags=("${arch[@]}" -lineinfo -cubin k.cu -MD -MF k.cubin.d)
  launch "${flags[@]}" -o k.cubin && "$NVCC" "${flags[@]/k.cubin.d/reference.d}" -o reference.cubin &&
    cmp -s k.cubin reference.cubin && diff <(sed 1d k.cubin.d) <(sed 1d reference.d) &&
    [ "$(ls)" = "$(printf 'k.cu\nk.cubin\nk.cubin.d\nreference.cubin\nreference.d\nt.h')" ]
)
check "launcher: -cubin -lineinfo -MD: nvcc's cubin and depfile, nothing else beside them" cubin_line_table

finish

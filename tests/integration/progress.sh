#!/usr/bin/env bash
# What a person sees while FastCuda's graph runs. Under the CMake module with
# Ninja the first CUDA object's launcher runs every sub-step of the build,
# and the outer Ninja prints that edge's output only when it ends; the
# graph's progress goes to the outer Ninja's own output meanwhile. Checked
# on a pseudo-terminal (a status line redrawn while the graph runs, erased
# at its end, the TU's warning still under its object's line), on a pipe (a
# CI log: plain lines during the build), under Unix Makefiles (`fastcuda
# build` prints each object's line as CMake's rule would, no Ninja status)
# and for the launcher's own graph of one TU that takes longer than 2 s.
# The device steps are slowed by a launcher that sleeps, so that the builds
# take seconds whatever the machine.
#
# usage: progress.sh FASTCUDA_BINARY [NVCC]
set -euo pipefail
here=$(dirname "$(realpath "${BASH_SOURCE[0]}")")
source "$here/checks.sh" progress "$@"
module=$(realpath "$here/../../cmake/FastCuda.cmake")
terminal_log() { python3 "$here/terminal_log.py" "$@"; }
export PATH="$(dirname "$NVCC"):$PATH"

project=$scratch/project
mkdir -p "$project"
cat > "$project/CMakeLists.txt" <<'EOF_CMAKE'
cmake_minimum_required(VERSION 3.20)
project(progress LANGUAGES CXX CUDA)
add_library(kernels STATIC a.cu b.cu c.cu)
if(CMAKE_GENERATOR MATCHES "Makefiles")
  # A recipe that make runs beside the graph, printing while it runs.
  add_custom_target(ticker ALL COMMAND sh -c "for i in 1 2 3 4 5 6; do echo tick $i; sleep 1; done" VERBATIM)
endif()
EOF_CMAKE
for name in a b c; do
  printf '__global__ void k_%s(float *x) { x[threadIdx.x] *= 2.f; }\n' "$name" > "$project/$name.cu"
done
echo '#warning "from c"' >> "$project/c.cu"
# cicc and ptxas take a second longer (FASTCUDA_SLOW seconds), b.cu's
# FASTCUDA_SLOW_B seconds more: its object comes last, well after the others.
# Host compiles take FASTCUDA_SLOW_HOST seconds longer: a Ninja that runs
# the longest chains first (1.12's critical path) may leave every host
# compile to the end, and still a first object's line must come seconds
# before the last.
cat > "$scratch/slow.sh" <<'EOF_SLOW'
#!/bin/sh
case $(basename "$1") in cicc | ptxas) sleep "${FASTCUDA_SLOW:-1}" ;; esac
case " $* " in *".cudafe1.cpp "*) sleep "${FASTCUDA_SLOW_HOST:-0}" ;; esac
case " $* " in *" b.cpp1.ii "* | *" b.ptx "* | */b.cpp1.ii* | */b.ptx*) sleep "${FASTCUDA_SLOW_B:-0}" ;; esac
exec "$@"
EOF_SLOW
chmod +x "$scratch/slow.sh"
export FASTCUDA_DEVICE_LAUNCHER=$scratch/slow.sh FASTCUDA_HOST_LAUNCHER=$scratch/slow.sh
configure() {  # GENERATOR DIR: the second takes the first's compilers (known_compilers), whatever its generator
  cmake -S "$project" -B "$2" -G "$1" -DCMAKE_CUDA_COMPILER="$NVCC" -DCMAKE_CUDA_ARCHITECTURES=80-real \
    -DCMAKE_PROJECT_INCLUDE="$module" -DFASTCUDA_EXECUTABLE="$FASTCUDA" $(known_compilers "$scratch/ninja" "$2") \
    > "$2.configure.log" 2>&1
}
status_line='\[[0-9]+/[0-9]+ CUDA sub-steps, [0-9]+ running, [0-9]+s\]'
plain_line='fastcuda: [0-9]+/[0-9]+ CUDA sub-steps \([0-9]+%\)'

# The TU's warning follows its object's line (past the lines FastCuda's
# generation printed, which belong to the object whose launcher ran it).
warning_under_its_object() {  # SCREEN
  awk '/warning: #warning "from c"/ { print previous; exit } !/^fastcuda: / { previous = $0 }' "$1" |
    grep -q 'Building CUDA object CMakeFiles/kernels.dir/c.cu.o$'
}

configure Ninja "$scratch/ninja"
terminal_log run --pty "$scratch/tty.json" ninja -C "$scratch/ninja" > /dev/null || echo "the build failed"
terminal_log screen "$scratch/tty.json" > "$scratch/tty.screen"
check "at a terminal, the module's graph redraws its status while it runs" \
  terminal_log during "$scratch/tty.json" "$status_line"
ends_clean() {
  ! grep -q "CUDA sub-steps" "$scratch/tty.screen" && warning_under_its_object "$scratch/tty.screen" &&
    grep -qE '^\[([0-9]+)/\1\] Linking CUDA static library libkernels.a$' "$scratch/tty.screen"
}
check "at a terminal, the status is erased at the end; the warning stays under its object" ends_clean

ninja -C "$scratch/ninja" -t clean > /dev/null
terminal_log run --pipe "$scratch/pipe.json" ninja -C "$scratch/ninja" > /dev/null || echo "the build failed"
terminal_log screen "$scratch/pipe.json" > "$scratch/pipe.screen"
check "on a pipe (a CI log), plain progress lines come while the graph runs" \
  terminal_log during "$scratch/pipe.json" "$plain_line"
before_objects() {  # the outer Ninja prints the graph's edge when it ends: after the progress lines
  grep -m1 -E "$plain_line|Building CUDA object" "$scratch/pipe.screen" | grep -q "^fastcuda: " &&
    warning_under_its_object "$scratch/pipe.screen"
}
check "on a pipe, the progress lines come before the objects' lines; the warning stays under its object" \
  before_objects

# Under make -j2 another recipe prints beside the graph. As CMake's own
# rules would, the graph prints one "Building CUDA object" line per object
# when it has built it (make finds the object up to date and prints none),
# and none of Ninja's "[n/N]" status lines; a build with nothing to do
# prints no such line, an edited TU exactly its own.
configure "Unix Makefiles" "$scratch/make"
FASTCUDA_SLOW_B=2 FASTCUDA_SLOW_HOST=1.5 terminal_log run --pty "$scratch/make.json" make -C "$scratch/make" -j2 > /dev/null ||
  echo "the build failed"
terminal_log screen "$scratch/make.json" > "$scratch/make.screen"
object_line='Building CUDA object CMakeFiles/kernels\.dir/[abc]\.cu\.o'
check "under Unix Makefiles, the graph prints each object's line as it builds it" \
  terminal_log during "$scratch/make.json" "$object_line"
object_lines() {  # LOG OBJECT...: the log's object lines are one for each OBJECT, and none is Ninja's status
  local log=$1 expected
  shift
  expected=$(for object in "$@"; do echo "Building CUDA object CMakeFiles/kernels.dir/$object"; done)
  [ "$(grep -o 'Building CUDA object .*' "$log" | sort)" = "$expected" ] && ! grep -qE '^\[[0-9]+/[0-9]+\]' "$log" ||
    { echo "  expected the lines of: $*; the log:"; sed 's/^/    /' "$log"; return 1; }
}
check "under make, one line per CUDA object as plain CMake prints, no [n/N] line" \
  object_lines "$scratch/make.screen" a.cu.o b.cu.o c.cu.o
whole_lines() {  # the warning under the line of the step that printed it
  ! grep -E 'tick [0-9]' "$scratch/make.screen" | grep -vE '^tick [0-9]$' &&
    [ "$(grep -c '^tick [0-9]$' "$scratch/make.screen")" = 6 ] &&
    awk '/warning: #warning "from c"/ { print previous; exit } { previous = $0 }' "$scratch/make.screen" |
    grep -qE '^CPP_(HOST|DEVICE compute_80) .*/c\.cu$'
}
check "under make -j2, another recipe's lines stay whole; the TU's warning is under its step's line" whole_lines
make_kernels() {  # LOG: make the library alone (not the ticker), fast steps
  FASTCUDA_SLOW=0 make -C "$scratch/make" -j2 kernels > "$1" 2>&1 || echo "the build failed"
}
make_kernels "$scratch/make-noop.log"
check "under make, a build with nothing to do prints no object line" object_lines "$scratch/make-noop.log"
sed -i 's/2\.f/3.f/' "$project/a.cu"
make_kernels "$scratch/make-edit.log"
check "under make, an edited TU prints its object's line only" object_lines "$scratch/make-edit.log" a.cu.o
touch "$project/b.cu"  # its steps find nothing changed; make, finding b.cu newer, runs its rule
make_kernels "$scratch/make-touch.log"
check "under make, a touched TU prints its object's line once" object_lines "$scratch/make-touch.log" b.cu.o

# The launcher's own graph of one TU, as a job of a Ninja (CMake's
# CMAKE_CUDA_COMPILER_LAUNCHER): its progress shows once it has run 2 s.
mkdir -p "$scratch/launcher"
cp "$project/a.cu" "$scratch/launcher/k.cu"
cat > "$scratch/launcher/build.ninja" <<EOF_NINJA
rule nvcc
  command = $FASTCUDA $NVCC -c \$in -o \$out -arch=sm_80
  description = Building CUDA object \$out
build k.o: nvcc k.cu
EOF_NINJA
FASTCUDA_SLOW=2 terminal_log run --pty "$scratch/launcher.json" ninja -C "$scratch/launcher" > /dev/null || echo "the build failed"
check "at a terminal, the launcher's graph of one TU shows its status after 2 s" \
  terminal_log during "$scratch/launcher.json" "$status_line"

finish

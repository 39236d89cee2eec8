#!/usr/bin/env bash
# What a person sees while FastCuda's graph runs. Under the CMake module with
# Ninja the first CUDA object's launcher runs every sub-step of the build,
# and the outer Ninja prints that edge's output only when it ends; the
# graph's progress goes to the outer Ninja's own output meanwhile. Checked
# on a pseudo-terminal (a status line redrawn while the graph runs, erased
# at its end, the TU's warning still under its object's line), on a pipe (a
# CI log: plain lines during the build), under Unix Makefiles (`fastcuda
# build` shows Ninja's own status) and for the launcher's own graph of one
# TU that takes longer than 2 s. The device steps are slowed by a launcher
# that sleeps, so that the builds take seconds whatever the machine.
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
# cicc and ptxas take a second longer (FASTCUDA_SLOW seconds).
cat > "$scratch/slow.sh" <<'EOF_SLOW'
#!/bin/sh
case $(basename "$1") in cicc | ptxas) sleep "${FASTCUDA_SLOW:-1}" ;; esac
exec "$@"
EOF_SLOW
chmod +x "$scratch/slow.sh"
export FASTCUDA_DEVICE_LAUNCHER=$scratch/slow.sh
configure() {  # GENERATOR DIR
  cmake -S "$project" -B "$2" -G "$1" -DCMAKE_CUDA_COMPILER="$NVCC" -DCMAKE_CUDA_ARCHITECTURES=80-real \
    -DCMAKE_PROJECT_INCLUDE="$module" -DFASTCUDA_EXECUTABLE="$FASTCUDA" > "$2.configure.log" 2>&1
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

# Under make -j2 another recipe prints beside the graph: Ninja's status
# comes as whole lines, which make's own lines do not run into.
configure "Unix Makefiles" "$scratch/make"
terminal_log run --pty "$scratch/make.json" make -C "$scratch/make" -j2 > /dev/null || echo "the build failed"
terminal_log screen "$scratch/make.json" > "$scratch/make.screen"
check "under Unix Makefiles, the graph's Ninja shows its status while it runs" \
  terminal_log during "$scratch/make.json" '\[[0-9]+/[0-9]+\] (CICC|PTXAS|FATBINARY|HOST_CC)'
whole_lines() {
  ! grep -E '^\[[0-9]+/[0-9]+\] ' "$scratch/make.screen" | grep -vE '\.cu$' &&
    ! grep -E 'tick [0-9]' "$scratch/make.screen" | grep -vE '^tick [0-9]$' &&
    [ "$(grep -c '^tick [0-9]$' "$scratch/make.screen")" = 6 ]
}
check "under make -j2, Ninja's status lines and another recipe's lines stay whole" whole_lines

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

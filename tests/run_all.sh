#!/usr/bin/env bash
# Installs what is missing, builds FastCuda with its tests, and runs every
# test (unit tests and the integration tests against real nvcc) with CTest,
# with Debian's CMake and Ninja; runs those whose outcome CMake's or Ninja's
# version can change once more with PyPI's newest (tests/pypi_tools.sh);
# builds it once more with clang under AddressSanitizer and
# UndefinedBehaviorSanitizer (beside those passes) and runs the unit tests,
# the graph tests (whose steps all run through the sanitized tool; with
# PyPI's tools where there are) and short runs of the fuzzers.
set -euo pipefail
# A unity build, one source a target: on CI's 2 cores 75 CPU s and 44 s,
# against 107 and 55 in CMake's batches of 8 (the demo's build, one TU per
# file, is where a missing #include shows).
unity_build="-DCMAKE_UNITY_BUILD=ON -DCMAKE_UNITY_BUILD_BATCH_SIZE=0"
FASTCUDA_CMAKE_OPTIONS="${FASTCUDA_CMAKE_OPTIONS:-} $unity_build"
source "$(dirname "${BASH_SOURCE[0]}")/../cmake/bootstrap.sh"

# The sanitized build runs beside the first two passes at the lowest
# priority, taking only the CPU their tests leave idle (configures, serial
# steps, waits), and as a unity build too.
sanitized="$FASTCUDA_BUILD_DIR-sanitize"
(CC=clang CXX=clang++ nice -n 19 cmake -S "$FASTCUDA_SOURCE_DIR" -B "$sanitized" -G Ninja -DCMAKE_BUILD_TYPE=Debug \
   -DFASTCUDA_STATIC=OFF -DFASTCUDA_SANITIZE=ON -DFASTCUDA_FUZZ=ON -DFASTCUDA_FUZZ_SECONDS=5 $unity_build &&
   nice -n 19 cmake --build "$sanitized") > "$sanitized.log" 2>&1 &
sanitized_build=$!
trap 'kill "$sanitized_build" 2>/dev/null || true' EXIT

# The second pass's tools are installed beside the first pass, as the
# sanitized build is (pip takes half a minute of CPU, mostly its own).
# A session of its own, so that an early exit stops pip with it.
setsid -w nice -n 19 "$FASTCUDA_SOURCE_DIR/tests/pypi_tools.sh" --install-only "$FASTCUDA_BUILD_DIR" \
  > "$FASTCUDA_BUILD_DIR/pypi-tools.out" 2>&1 &
pypi_install=$!
trap 'kill "$sanitized_build" 2>/dev/null; kill -- -"$pypi_install" 2>/dev/null || true' EXIT

# The graph tests that run sanitized run there with PyPI's tools, and not in
# the second pass too: each runs once with Debian's Ninja and once with
# PyPI's newest, as the second pass's other tests do.
# One test more than the cores: every test has stretches that leave its core
# idle (configures, serial scripts, waits for a process to die), which the
# extra one fills (on CI's 2 cores the machine was busy 85 % of the run with
# one test a core).
export FASTCUDA_TEST_JOBS=$(($(nproc) + 1))
ctest=$(command -v ctest)
"$ctest" --test-dir "$FASTCUDA_BUILD_DIR" --output-on-failure -j "$FASTCUDA_TEST_JOBS" "$@"
wait "$pypi_install" || true  # a failed install is retried, and reported, by the pass itself
trap 'kill "$sanitized_build" 2>/dev/null || true' EXIT
"$FASTCUDA_SOURCE_DIR/tests/pypi_tools.sh" "$FASTCUDA_BUILD_DIR" -E '^(global_graph|restat|memory)$' "$@"

wait "$sanitized_build" || { cat "$sanitized.log"; echo "the sanitized build failed" >&2; exit 1; }
pypi_tools="$FASTCUDA_BUILD_DIR/pypi-tools/bin"
[ ! -x "$pypi_tools/ninja" ] || export PATH="$pypi_tools:$PATH" FASTCUDA_TEST_TOOLS_DIR="$pypi_tools"
"$ctest" --test-dir "$sanitized" --output-on-failure -j "$FASTCUDA_TEST_JOBS" \
  -R '^(unit|global_graph|restat|memory|fuzz_.*)$' "$@"

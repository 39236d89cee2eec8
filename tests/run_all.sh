#!/usr/bin/env bash
# Installs what is missing, builds FastCuda with its tests, and runs every
# test (unit tests and the integration tests against real nvcc) with CTest,
# with Debian's CMake and Ninja; runs those whose outcome CMake's or Ninja's
# version can change once more with PyPI's newest (tests/pypi_tools.sh); then
# builds it once more with clang under AddressSanitizer and
# UndefinedBehaviorSanitizer and runs the unit tests, the graph tests (whose
# steps all run through the sanitized tool) and short runs of the fuzzers.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../cmake/bootstrap.sh"
ctest --test-dir "$FASTCUDA_BUILD_DIR" --output-on-failure -j "$(nproc)" "$@"
"$FASTCUDA_SOURCE_DIR/tests/pypi_tools.sh" "$FASTCUDA_BUILD_DIR" "$@"

sanitized="$FASTCUDA_BUILD_DIR-sanitize"
CC=clang CXX=clang++ cmake -S "$FASTCUDA_SOURCE_DIR" -B "$sanitized" -G Ninja -DCMAKE_BUILD_TYPE=Debug \
  -DFASTCUDA_STATIC=OFF -DFASTCUDA_SANITIZE=ON -DFASTCUDA_FUZZ=ON -DFASTCUDA_FUZZ_SECONDS=10 >/dev/null
cmake --build "$sanitized"
ctest --test-dir "$sanitized" --output-on-failure -j "$(nproc)" \
  -R '^(unit|global_graph|restat|memory|fuzz_.*)$' "$@"

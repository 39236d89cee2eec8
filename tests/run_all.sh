#!/usr/bin/env bash
# Installs what is missing, builds FastCuda with its tests, and runs every
# test (unit tests and the integration tests against real nvcc) with CTest.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../cmake/bootstrap.sh"
cd "$FASTCUDA_BUILD_DIR"
ctest --output-on-failure -j "$(nproc)" "$@"

#!/usr/bin/env bash
# Sourced by examples/demo.sh, tests/run_all.sh and bench/: installs the
# Debian packages FastCuda needs (as root, or through sudo), finds nvcc, and
# builds fastcuda into $FASTCUDA_BUILD_DIR (default: build/ in the source
# tree), configured with the -D options in FASTCUDA_CMAKE_OPTIONS if any.
# With FASTCUDA_BINARY set to an existing fastcuda, it uses that one
# and installs and builds nothing (for machines without a package mirror).
set -euo pipefail

FASTCUDA_SOURCE_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
FASTCUDA_BUILD_DIR="${FASTCUDA_BUILD_DIR:-$FASTCUDA_SOURCE_DIR/build}"

fastcuda_install_packages() {
  # make (the Makefile generator, the jobserver test), jq, ccache,
  # distcc, clang with libFuzzer, clang-format (the format check),
  # python3-venv (python3, which also checks an SVG; PyPI's cmake and
  # ninja for the second pass, tests/pypi_tools.sh), meson (Debian's 1.0, for
  # tests/integration/meson_project.sh), postgresql and iproute2 (the
  # REAPI service's scheduler database and its bot's network namespace,
  # tests/integration/reapi_steps.sh) and bubblewrap (sccache-dist's build
  # servers' sandbox, tests/integration/sccache_dist.sh) are for the tests.
  local wanted=(cmake ninja-build make g++ pkg-config binutils nlohmann-json3-dev libre2-dev doctest-dev
                jq ccache distcc clang libclang-rt-14-dev clang-format python3-venv meson
                postgresql iproute2 bubblewrap)
  local missing=()
  for package in "${wanted[@]}"; do
    dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "ok installed" || missing+=("$package")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  echo "fastcuda: installing ${missing[*]}"
  local sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}" >/dev/null
}

fastcuda_find_nvcc() {
  if ! command -v nvcc >/dev/null 2>&1; then
    [ -x /usr/local/cuda/bin/nvcc ] || { echo "fastcuda: nvcc not found (PATH or /usr/local/cuda)" >&2; return 1; }
    export PATH="/usr/local/cuda/bin:$PATH"
  fi
}

fastcuda_build() {
  # shellcheck disable=SC2086 # options are words
  cmake -S "$FASTCUDA_SOURCE_DIR" -B "$FASTCUDA_BUILD_DIR" -G Ninja -DCMAKE_BUILD_TYPE=Release \
    ${FASTCUDA_CMAKE_OPTIONS:-} >/dev/null
  cmake --build "$FASTCUDA_BUILD_DIR"
  FASTCUDA_BINARY="$FASTCUDA_BUILD_DIR/bin/fastcuda"
}

fastcuda_find_nvcc
if [ -n "${FASTCUDA_BINARY:-}" ] && [ -x "$FASTCUDA_BINARY" ]; then
  FASTCUDA_BINARY="$(cd "$(dirname "$FASTCUDA_BINARY")" && pwd)/$(basename "$FASTCUDA_BINARY")"
  mkdir -p "$FASTCUDA_BUILD_DIR"
else
  fastcuda_install_packages
  fastcuda_build
fi

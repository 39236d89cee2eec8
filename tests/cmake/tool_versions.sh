#!/usr/bin/env bash
# Says which cmake and ninja the tests labelled tool_versions run: the ones
# on PATH in a test's environment. With FASTCUDA_TEST_TOOLS_DIR set (the
# second pass, tests/pypi_tools.sh) both must come from that directory: a
# test environment that put a directory holding Debian's cmake or ninja
# first (nvcc's, where nvcc is /usr/bin/nvcc) would otherwise run Debian's
# tools in both passes, unseen.
#
# usage: tool_versions.sh FASTCUDA_SOURCE_DIR FASTCUDA_BUILD_DIR
set -euo pipefail
source_dir=$(realpath "$1"); build_dir=$(realpath "$2")
source "$source_dir/tests/integration/checks.sh" tool_versions "$build_dir/bin/fastcuda"

from_tools_dir() {  # TOOL: on PATH, and in FASTCUDA_TEST_TOOLS_DIR when that is set
  local path
  path=$(command -v "$1") || { echo "  no $1 on PATH"; return 1; }
  echo "  $path: $("$path" --version | head -1)"
  [ -z "${FASTCUDA_TEST_TOOLS_DIR:-}" ] || [ "$path" = "$FASTCUDA_TEST_TOOLS_DIR/$1" ]
}
check "cmake${FASTCUDA_TEST_TOOLS_DIR:+ from $FASTCUDA_TEST_TOOLS_DIR}" from_tools_dir cmake
check "ninja${FASTCUDA_TEST_TOOLS_DIR:+ from $FASTCUDA_TEST_TOOLS_DIR}" from_tools_dir ninja
finish

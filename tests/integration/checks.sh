# Sourced by the integration scripts: their arguments, a scratch directory and
# PASS/FAIL bookkeeping.
#   source checks.sh NAME "$@"   sets FASTCUDA, NVCC and scratch (a new directory
#                                under $FASTCUDA_TEST_SCRATCH, else $PWD)
#   check NAME COMMAND...        runs COMMAND, prints PASS or FAIL NAME
#   finish                       prints "N passed, M failed"; removes the scratch
#                                directory if all passed, else keeps it and exits 1
FASTCUDA=$(realpath "$2")
NVCC=${3:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
scratch=$(mktemp -d "${FASTCUDA_TEST_SCRATCH:-$PWD}/$1.XXXXXX")
passed=0
failed=0

check() {
  local name=$1
  shift
  if "$@"; then
    echo "PASS $name"
    passed=$((passed + 1))
  else
    echo "FAIL $name"
    failed=$((failed + 1))
  fi
}

finish() {
  echo "$passed passed, $failed failed"
  cd /
  if [ "$failed" -eq 0 ]; then
    rm -rf "$scratch"
  else
    echo "scratch kept: $scratch"
    exit 1
  fi
}

# Sourced by the integration scripts: their arguments, a scratch directory,
# PASS/FAIL bookkeeping and an object comparison.
#   source checks.sh NAME "$@"   sets FASTCUDA, NVCC and scratch (a new directory
#                                under $FASTCUDA_TEST_SCRATCH, else $PWD)
#   check NAME COMMAND...        runs COMMAND, prints PASS or FAIL NAME
#   same_object OBJECT REFERENCE equal device code (.nv_fatbin, or __nv_relfatbin
#                                for relocatable code; not empty) and host symbols (nm)
#   rdc_compile_database FLAGS...  compile_commands.json compiling a/k.cu and b/k.cu
#                                with -rdc=true FLAGS into a/k.o and b/k.o
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

same_object() {
  objcopy -O binary --only-section=.nv_fatbin --only-section=__nv_relfatbin "$1" "$scratch/object.fatbin" &&
    objcopy -O binary --only-section=.nv_fatbin --only-section=__nv_relfatbin "$2" "$scratch/reference.fatbin" &&
    [ -s "$scratch/object.fatbin" ] && cmp -s "$scratch/object.fatbin" "$scratch/reference.fatbin" &&
    cmp -s <(nm "$1") <(nm "$2")
}

rdc_compile_database() {
  cat > compile_commands.json <<JSON
[{"directory": "$scratch", "file": "$scratch/a/k.cu", "output": "a/k.o",
  "command": "$NVCC -rdc=true $* -c a/k.cu -o a/k.o"},
 {"directory": "$scratch", "file": "$scratch/b/k.cu", "output": "b/k.o",
  "command": "$NVCC -rdc=true $* -c b/k.cu -o b/k.o"}]
JSON
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

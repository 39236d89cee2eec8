# Sourced by the integration scripts: their arguments, a scratch directory,
# PASS/FAIL bookkeeping and an object comparison.
#   source checks.sh NAME "$@"   sets FASTCUDA, NVCC and scratch (a new directory
#                                under $FASTCUDA_TEST_SCRATCH, else $PWD), all
#                                absolute, and FASTCUDA_STEP_HISTORY in scratch;
#                                exits 2 if FASTCUDA is not executable
#   check NAME COMMAND...        runs COMMAND, prints PASS or FAIL NAME
#   record STATUS NAME           the same for a result found otherwise: PASS if
#                                STATUS is 0
#   same_object OBJECT REFERENCE equal device code (.nv_fatbin, or __nv_relfatbin
#                                for relocatable code; not empty) and host symbols
#                                (nm, see host_symbols)
#   same_but_host_addresses OBJECT REFERENCE  the same, but for where each host
#                                symbol is: gcc compiling its own -E output
#                                (distcc, sccache-dist) can lay out -O0 code
#                                otherwise (a nop more after a multi-line macro)
#   fresh OBJECT NVCC-ARGS...    OBJECT equals (same_object) what nvcc writes now
#                                from NVCC-ARGS, written to reference.o
#   graph_build NVCC-ARGS...     a one-entry database here (db.json, its source
#                                k.cu) built by `fastcuda build` into graph/
#   compile_as launcher|graph NVCC-ARGS...  compiles here with the launcher or
#                                graph_build
#   tus_compile_database BUILD PROJECT NVCC-FLAGS...  BUILD/compile_commands.json
#                                compiling PROJECT/TU.cu into obj/TU.o (BUILD's)
#                                for each TU of the array tus, with NVCC-FLAGS
#   rdc_compile_database FLAGS...  compile_commands.json compiling a/k.cu and b/k.cu
#                                with -rdc=true FLAGS into a/k.o and b/k.o
#   steps_at_once NINJA_LOG      the most steps of the last build that ran at once
#   steps_run LOG                the edge lines of a Ninja run's output but the
#                                priority ladder's rungs, which run no step
#   graph_wrote_objects BUILD    true if BUILD has CUDA objects (*.cu.o) and
#                                its graph (BUILD/fastcuda) wrote each one
#   every_step_once GRAPH_DIR    true if the graph's last build was a first build
#                                that ran the first phase, then every step that
#                                writes a file once (fastcuda table)
#   graph_log_mark GRAPH_DIR     how many lines the graph's .ninja_log has now
#   expanded_manifest MANIFEST   its text with the path variables (`${w}`...)
#                                written out
#   graph_ran GRAPH_DIR MARK RE  true if a step whose description matches RE
#                                ran after the graph's log had MARK lines
#   cicc_wrote_temp_file PID     waits up to 60 s until a cicc that PID started
#                                (at any depth) has a file in its TMPDIR (its
#                                bitcode); true if one does
#   empty_dir DIR                true if DIR is a directory with nothing in it
#   known_compilers FIRST DIR    cmake arguments that make build dir DIR take
#                                the compilers CMake found for build dir FIRST
#                                (none where DIR is FIRST or FIRST has none):
#                                its compiler checks cost 4 s of CPU a configure
#   same_with_any_tools NAME     in tests/pypi_tools.sh's second pass (which
#                                sets FASTCUDA_TEST_SECOND_PASS=1) prints "SKIP
#                                (second pass: same with any CMake/Ninja) NAME"
#                                and is true, else false: a case (or a group,
#                                with what only it needs) whose outcome no CMake
#                                or Ninja version changes runs in the first pass
#                                only; the caller's comment says why
#   check_any_tools NAME COMMAND...  check NAME COMMAND..., unless
#                                same_with_any_tools NAME
#   finish                       prints "N passed, M failed" last; removes the
#                                scratch directory if all passed (unless
#                                FASTCUDA_TEST_KEEP=1), else keeps it and exits 1
if [ ! -x "${2:-}" ]; then
  echo "$1: no fastcuda tool at '${2:-}'" >&2
  exit 2
fi
FASTCUDA=$(realpath "$2")
NVCC=${3:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
# Absolute, as the scripts cd into their own directories.
case $NVCC in */*) NVCC=$(realpath -s "$NVCC") ;; esac
scratch=$(realpath "$(mktemp -d "${FASTCUDA_TEST_SCRATCH:-$PWD}/$1.XXXXXX")")
# Step times remembered across build directories stay within the test (not
# the user's cache): every test starts with none.
export FASTCUDA_STEP_HISTORY=$scratch/step-times
passed=0
failed=0

record() {
  if [ "$1" -eq 0 ]; then
    echo "PASS $2"
    passed=$((passed + 1))
  else
    echo "FAIL $2"
    failed=$((failed + 1))
  fi
}

known_compilers() {  # CMakeFiles/<version> names no path of its build directory
  [ "$1" != "$2" ] && [ -d "$1/CMakeFiles" ] || return 0
  # Its file of CUDA's compiler names no ranlib (CXX's does): a CUDA-only
  # project takes the first's from its cache, else its static libraries' link runs "".
  mkdir -p "$2/CMakeFiles" && cp -a "$1"/CMakeFiles/[0-9]* "$2/CMakeFiles/" &&
    echo -DCMAKE_PLATFORM_INFO_INITIALIZED=1 "$(sed -n 's/^CMAKE_RANLIB:FILEPATH=/-DCMAKE_RANLIB=/p' "$1/CMakeCache.txt")"
}

cicc_wrote_temp_file() {  # reads /proc with builtins only: a busy machine must not miss the file's life
  local i cicc pid stat dir variable
  for i in $(seq 3000); do
    for cicc in $(pgrep -x cicc); do
      pid=$cicc
      while [ "${pid:-0}" -gt 1 ] && [ "$pid" != "$1" ]; do
        read -r stat 2> /dev/null < "/proc/$pid/stat" || break
        stat=${stat##*) }  # the fields after the command's name: state, then the parent
        pid=${stat#* }
        pid=${pid%% *}
      done
      [ "$pid" = "$1" ] || continue
      dir=
      while IFS= read -r -d '' variable; do
        [[ $variable != TMPDIR=* ]] || dir=${variable#TMPDIR=}
      done 2> /dev/null < "/proc/$cicc/environ"
      [ -z "$dir" ] || ! compgen -G "$dir/*" > /dev/null || return 0
    done
    sleep 0.02
  done
  return 1
}

empty_dir() { [ -d "$1" ] && [ -z "$(ls -A "$1")" ]; }

same_with_any_tools() {  # CI's 15 minutes: the second pass runs what its newer CMake and Ninja can change
  [ "${FASTCUDA_TEST_SECOND_PASS:-0}" = 1 ] || return 1
  echo "SKIP (second pass: same with any CMake/Ninja) $1"
}
check_any_tools() { same_with_any_tools "$1" || check "$@"; }

check() {  # NAME COMMAND...: records whether COMMAND succeeded, and in how many seconds (CI's time is short)
  local name=$1 status=0 start=$SECONDS
  shift
  "$@" || status=$?
  record "$status" "$name ($((SECONDS - start)) s)"
}

same_device_code() {
  objcopy -O binary --only-section=.nv_fatbin --only-section=__nv_relfatbin "$1" "$scratch/object.fatbin" &&
    objcopy -O binary --only-section=.nv_fatbin --only-section=__nv_relfatbin "$2" "$scratch/reference.fatbin" &&
    [ -s "$scratch/object.fatbin" ] && cmp -s "$scratch/object.fatbin" "$scratch/reference.fatbin"
}
same_object() {
  same_device_code "$1" "$2" && cmp -s <(host_symbols "$1") <(host_symbols "$2")
}
same_but_host_addresses() {  # nm's lines without the address (16 digits and a space)
  same_device_code "$1" "$2" && cmp -s <(host_symbols "$1" | cut -c 18-) <(host_symbols "$2" | cut -c 18-)
}

steps_run() {
  grep -E '^\[[0-9]+/[0-9]+\] ' "$1" | grep -Ev '^\[[0-9]+/[0-9]+\] rung ' || true
}

fresh() {
  local object=$1; shift
  "$NVCC" "$@" -o reference.o && same_object "$object" reference.o
}

graph_build() {
  printf '[{"directory": "%s", "file": "k.cu", "command": "%s %s"}]\n' "$PWD" "$NVCC" "$*" > db.json
  "$FASTCUDA" build --compdb db.json --out graph > build.log 2>&1
}

compile_as() {
  local mode=$1; shift
  if [ "$mode" = launcher ]; then "$FASTCUDA" "$NVCC" "$@"; else graph_build "$@"; fi
}

host_symbols() {  # OBJECT: nm, with the temporary file name that nvcc gives a TU's
  # static initializer (_GLOBAL__sub_I_tmpxft_<pid>_..._NAME.cudafe1.cpp, other
  # on every nvcc run) reduced to NAME.cudafe1.cpp, the name FastCuda's stable
  # temporaries give it
  nm "$1" | sed 's/_GLOBAL__sub_I_tmpxft_[0-9a-f]*_[0-9a-f]*_[0-9]*_/_GLOBAL__sub_I_/'
}

tus_compile_database() {
  local build=$1 project=$2 tu
  shift 2
  {
    echo "["
    for tu in "${tus[@]}"; do
      [ "$tu" = "${tus[0]}" ] || echo ","
      printf '{"directory": "%s", "file": "%s/%s.cu", "output": "obj/%s.o", "command": "%s %s -c %s/%s.cu -o obj/%s.o"}' \
        "$build" "$project" "$tu" "$tu" "$NVCC" "$*" "$project" "$tu" "$tu"
    done
    echo "]"
  } > "$build/compile_commands.json"
}

rdc_compile_database() {
  cat > compile_commands.json <<JSON
[{"directory": "$scratch", "file": "$scratch/a/k.cu", "output": "a/k.o",
  "command": "$NVCC -rdc=true $* -c a/k.cu -o a/k.o"},
 {"directory": "$scratch", "file": "$scratch/b/k.cu", "output": "b/k.o",
  "command": "$NVCC -rdc=true $* -c b/k.cu -o b/k.o"}]
JSON
}

steps_at_once() {
  # The last build's records: Ninja's clock starts again with each build, so
  # end times only grow within one, and again after it regenerated its
  # manifest (that record is left out). An edge has a record per output: one
  # per start, end and command hash. A first build's first phase and
  # estimates come before its build's records, where `first-phase` says: a
  # build whose first record ends after the phase's last would count them as
  # running beside it. Only while they are still there: a Ninja that finds
  # the log's version too old starts it over, and an offset into the new
  # log would cut a record (its start read as a few ms).
  local phase skip=0 estimates_begin build_begin
  phase="$(dirname "$1")/first-phase"
  if [ -f "$phase" ]; then
    read -r estimates_begin build_begin _ < "$phase"
    # head reads the file and its readers read all it writes: `tail | head`
    # under pipefail fails at random (SIGPIPE to tail once head has enough).
    if head -c "$build_begin" "$1" | tail -c +$((estimates_begin + 1)) |
      awk -F'\t' '$1 != 0 { bad = 1 } END { exit bad || NR == 0 }' &&
      [ "$(head -c "$build_begin" "$1" | tail -c 1 | od -An -c | tr -d ' ')" = '\n' ]; then
      skip=$build_begin
    fi
  fi
  tail -c +$((skip + 1)) "$1" | grep -v '^#' | awk -F'\t' '$4 ~ /(^|\/)build\.ninja$/ { next }
      $2 < last { n = 0; delete seen } { last = $2 }
      !seen[$1 FS $2 FS $5]++ { starts[++n] = $1; ends[n] = $2 }
      END { for (i = 1; i <= n; i++) { print starts[i], 1; print ends[i], -1 } }' |
    sort -n -k1,1 -k2,2 |
    awk '{ now += $2; if (now > most) most = now } END { print most }'
}

graph_wrote_objects() {
  local object count=0
  while IFS= read -r -d '' object; do
    LC_ALL=C awk -F'\t' -v want="$object" '$4 == want { found = 1 } END { exit !found }' "$1/fastcuda/.ninja_log" ||
      return 1
    count=$((count + 1))
  done < <(find "$1" -name '*.cu.o' -not -path "$1/fastcuda/*" -print0)
  [ "$count" -gt 0 ]
}

every_step_once() {
  [ -f "$1/first-phase" ] && "$FASTCUDA" table "$1" > "$scratch/table.csv" &&
    [ "$(tail -n +2 "$scratch/table.csv" | wc -l)" -eq "$(jq '[.tus[].steps[] | select((.output // .in_work_dir) != "")] | length' "$1/steps.json")" ] &&
    [ -z "$(cut -d, -f5 "$scratch/table.csv" | sort | uniq -d)" ]
}

graph_log_mark() {
  if [ -f "$1/.ninja_log" ]; then wc -l < "$1/.ninja_log"; else echo 0; fi
}

expanded_manifest() {  # MANIFEST: its text with the top-level variables
  # that FastCuda's manifests name paths through (the work dir, the cwd, the
  # source's directory, the environment file: `${w}`...) written out, as
  # Ninja reads them
  awk '
    /^[A-Za-z_][A-Za-z0-9_]* = / { value[$1] = substr($0, length($1) + 4); print; next }
    {
      for (name in value) {
        while ((at = index($0, "${" name "}")) > 0)
          $0 = substr($0, 1, at - 1) value[name] substr($0, at + length(name) + 3)
      }
      print
    }' "$1"
}

graph_ran() {
  local ran
  # The first output of each edge described by RE, as the manifest names it
  # and the log records it.
  expanded_manifest "$1/build.ninja" |
    awk -v re="$3" '/^build / { out = $2; sub(/:$/, "", out) } /^  desc = / && $0 ~ re { print out }' |
    sort -u > "$scratch/graph_ran.wanted"
  ran=$(tail -n +"$(($2 + 1))" "$1/.ninja_log" | awk -F'\t' '{ print $4 }' | sort -u |
    comm -12 - "$scratch/graph_ran.wanted") && [ -n "$ran" ]
}

finish() {
  cd /
  if [ "$failed" -eq 0 ] && [ "${FASTCUDA_TEST_KEEP:-0}" = 0 ]; then
    rm -rf "$scratch"
  else
    echo "scratch kept: $scratch"
  fi
  echo "$passed passed, $failed failed"
  [ "$failed" -eq 0 ] || exit 1
}

# Sourced by memory_cgroup.sh and bench/memory_limit.sh: a memory cgroup of
# their own, below the process's own one, with a limit and no swap, for
# cgroup v1 (a writable memory controller) and v2 (a writable cgroup whose
# parent delegates the memory controller).
#   cgroup_make NAME BYTES   makes it (CGROUP_DIR, CGROUP_VERSION 1 or 2) and
#                            has the EXIT trap remove it (then run the trap
#                            set before); fails with CGROUP_WHY where none
#                            can be made here
#   cgroup_limit BYTES       sets its limit (memory and memory+swap)
#   cgroup_run COMMAND...    runs COMMAND inside it
#   cgroup_oom_kills         how many processes its out-of-memory killer ended
#   cgroup_peak_bytes        its peak memory since cgroup_reset_peak (empty
#                            where the kernel keeps none: v2 before 5.19)
#   cgroup_reset_peak
#   cgroup_remove            stops what still runs in it and removes it
CGROUP_DIR="" CGROUP_VERSION="" CGROUP_WHY="" CGROUP_PREVIOUS_EXIT=""

cgroup_mount() {  # TYPE [CONTROLLER]: where the hierarchy of that type (and controller) is mounted
  awk -v type="$1" -v controller="${2:-}" '{
      for (i = 7; $i != "-"; i++) {}
      if ($(i + 1) != type) next
      if (controller != "" && index("," $(i + 3) ",", "," controller ",") == 0) next
      print $5; exit }' /proc/self/mountinfo
}

cgroup_make() {
  local name=$1 bytes=$2 mount own parent candidate
  mount=$(cgroup_mount cgroup memory)
  if [ -n "$mount" ]; then
    CGROUP_VERSION=1
    own=$(awk -F: '$2 ~ /(^|,)memory(,|$)/ { print $3; exit }' /proc/self/cgroup)
  else
    CGROUP_VERSION=2
    mount=$(cgroup_mount cgroup2)
    own=$(awk -F: '$1 == "0" { print $3; exit }' /proc/self/cgroup)
    if [ -z "$mount" ]; then
      CGROUP_WHY="no cgroup hierarchy with a memory controller is mounted"
      return 1
    fi
  fi
  # Below the process's own cgroup, else (as root) below the hierarchy's.
  CGROUP_WHY="cgroup v$CGROUP_VERSION: no memory cgroup can be made in $mount${own%/} or $mount"
  for candidate in "$mount${own%/}" "$mount"; do
    # v2 gives a child memory files only where its parent delegates the
    # controller, which a cgroup with processes of its own (but the root) cannot.
    if [ "$CGROUP_VERSION" = 2 ] && ! grep -qw memory "$candidate/cgroup.subtree_control" 2> /dev/null &&
      ! echo +memory 2> /dev/null > "$candidate/cgroup.subtree_control"; then
      continue
    fi
    if mkdir "$candidate/$name" 2> /dev/null; then
      parent=$candidate
      break
    fi
  done
  [ -n "${parent:-}" ] || return 1
  CGROUP_DIR=$parent/$name
  # Removed however the script ends, before what it did on exit already.
  local previous ours='cgroup_remove; eval "$CGROUP_PREVIOUS_EXIT"'
  eval "previous=($(trap -p EXIT))"
  [ "${previous[2]:-}" = "$ours" ] || CGROUP_PREVIOUS_EXIT=${previous[2]:-}  # a second cgroup_make
  trap "$ours" EXIT
  trap 'exit 130' INT TERM HUP
  cgroup_limit "$bytes" || {
    CGROUP_WHY="cgroup v$CGROUP_VERSION: cannot set a memory limit in $CGROUP_DIR"
    cgroup_remove
    return 1
  }
}

cgroup_limit() {
  if [ "$CGROUP_VERSION" = 1 ]; then
    # The memory+swap limit may not fall below the memory limit, nor that rise above it.
    [ ! -e "$CGROUP_DIR/memory.memsw.limit_in_bytes" ] || echo -1 > "$CGROUP_DIR/memory.memsw.limit_in_bytes"
    echo "$1" > "$CGROUP_DIR/memory.limit_in_bytes" || return 1
    [ ! -e "$CGROUP_DIR/memory.memsw.limit_in_bytes" ] || echo "$1" > "$CGROUP_DIR/memory.memsw.limit_in_bytes"
  else
    echo "$1" > "$CGROUP_DIR/memory.max" || return 1
    [ ! -e "$CGROUP_DIR/memory.swap.max" ] || echo 0 > "$CGROUP_DIR/memory.swap.max"
  fi
}

cgroup_run() {
  bash -c 'echo $$ > "$1/cgroup.procs" && shift && exec "$@"' cgroup_run "$CGROUP_DIR" "$@"
}

cgroup_oom_kills() {
  local file=$CGROUP_DIR/memory.events
  [ "$CGROUP_VERSION" = 2 ] || file=$CGROUP_DIR/memory.oom_control
  awk '$1 == "oom_kill" { print $2; found = 1 } END { if (!found) print 0 }' "$file"
}

cgroup_peak_bytes() {
  if [ "$CGROUP_VERSION" = 1 ]; then cat "$CGROUP_DIR/memory.max_usage_in_bytes"
  elif [ -e "$CGROUP_DIR/memory.peak" ]; then cat "$CGROUP_DIR/memory.peak"
  fi
}

cgroup_reset_peak() {
  if [ "$CGROUP_VERSION" = 1 ]; then echo 0 > "$CGROUP_DIR/memory.max_usage_in_bytes"
  elif [ -e "$CGROUP_DIR/memory.peak" ]; then echo 0 > "$CGROUP_DIR/memory.peak" 2> /dev/null || true  # 6.12 and later
  fi
}

cgroup_remove() {
  [ -n "$CGROUP_DIR" ] && [ -d "$CGROUP_DIR" ] || return 0
  local pids pid
  for _ in $(seq 50); do  # the test's own processes, which a failed check may have left
    pids=$(cat "$CGROUP_DIR/cgroup.procs" 2> /dev/null)  # (its size reads 0 whatever it holds)
    [ -n "$pids" ] || break
    for pid in $pids; do kill -9 "$pid" 2> /dev/null || true; done
    sleep 0.1
  done
  rmdir "$CGROUP_DIR" 2> /dev/null || echo "cgroup: could not remove $CGROUP_DIR" >&2
  CGROUP_DIR=""
}

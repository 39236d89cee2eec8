#!/usr/bin/env bash
# The seams of FastCuda's I/O: every process goes through a CommandRunner,
# every file effect through a FileSystem, and the environment is read once;
# the real ones are made once per command at the CLI edge (src/cli/main.cc)
# and passed down (CommandIo), so that every path of every command runs on
# fakes in the unit tests. Prints each use, outside the files listed for it,
# of what only the edge may use, and fails if there is one.
#
# usage: check_io.sh FASTCUDA_SOURCE_DIR
set -euo pipefail
cd "$1"
# What only the edge may use (an extended regex, matched outside // comments)
# and the files that may use it, each with why.
rules=(
  # the real runner spawns processes; nothing else does
  'RunProcess\(' 'src/base/process.h src/base/process.cc'
  # the fallback to plain nvcc replaces the launcher's process: no runner returns from it
  'ExecProcess\(' 'src/base/process.h src/base/process.cc src/cli/launcher.cc'
  # made once, at the edge
  'RealCommandRunner' 'src/base/process.h src/cli/main.cc'
  'RealFileSystem' 'src/base/file_system.h src/base/file_system.cc src/cli/main.cc'
  'CurrentEnvironment\(' 'src/base/process.h src/base/process.cc src/cli/main.cc'
  # the real runner hands its own environment to children and finds their programs on its PATH;
  # the remote client's step wrapper is a program of its own, an edge whole (a millisecond to start)
  'getenv|[^[:alnum:]_]environ[^[:alnum:]_]' 'src/base/process.cc src/remote/step_wrapper.cc'
  # the real file system's own writes; a lock is a descriptor, not a file's content; the
  # progress of a graph goes to the output of the outer Ninja that captures FastCuda's own
  # (a terminal or a pipe, opened anew through /proc: no file of the build)
  '(^|[^[:alnum:]_.>:])open\(' 'src/base/file_system.cc src/base/directory_lock.cc src/base/step_gate.cc src/remote/step_wrapper.cc src/cli/progress_output.cc'
  'fopen|fstream' 'src/base/file_system.cc'
  'WriteFileAtomically' 'src/base/file_system.h src/base/file_system.cc'
)
violations=0
files=$(find src ninja-gen -name '*.h' -o -name '*.cc' | wc -l)
for ((i = 0; i < ${#rules[@]}; i += 2)); do
  pattern=${rules[i]} allowed=" ${rules[i + 1]} "
  while IFS=: read -r file line text; do
    [[ $allowed == *" $file "* ]] && continue
    [[ ${text%%//*} =~ $pattern ]] || continue  # only in a comment
    echo "$file:$line: only the edge may use ${pattern}"
    violations=$((violations + 1))
  done < <(grep -rnE --include='*.h' --include='*.cc' -- "$pattern" src ninja-gen | sort)
done
echo "io: $files files, $violations uses of the edge's I/O outside it"
[ "$violations" -eq 0 ] && [ "$files" -gt 0 ]

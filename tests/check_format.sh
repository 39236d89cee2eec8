#!/usr/bin/env bash
# The C++ sources follow .clang-format: prints the files clang-format would
# change, and fails if there is one.
#
# usage: check_format.sh FASTCUDA_SOURCE_DIR CLANG_FORMAT
set -euo pipefail
cd "$1"
mapfile -t files < <(find src ninja-gen tests -name '*.cc' -o -name '*.h' | grep -v '/corpus/' | sort)
unformatted=0
for file in "${files[@]}"; do
  "$2" --dry-run --Werror "$file" 2> /dev/null || { echo "not formatted: $file"; unformatted=$((unformatted + 1)); }
done
echo "format: ${#files[@]} files, $unformatted not formatted (clang-format -i FILE formats one)"
[ "$unformatted" -eq 0 ] && [ "${#files[@]}" -gt 0 ]

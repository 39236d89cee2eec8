#!/usr/bin/env bash
# Copies this machine's TOOL into DIR to be carried to a machine that has
# none (the 16-core GPU machine has no ccache for whole_call_cache.sh and no
# ip for remote_build.sh's network namespaces): DIR/TOOL runs the copy with
# the shared libraries it links beside it, but the C library's own, which
# every Linux has (the GPU machine's Ubuntu 24.04 a newer one than Debian 12).
# The machine's own loader runs it with --library-path, so the programs the
# tool starts (`ip netns exec` runs the bots) never see those libraries.
# Usage: bench/carry_tool.sh TOOL DIR   e.g. bench/carry_tool.sh ip build-carry/tools
set -euo pipefail
tool="${1:?usage: bench/carry_tool.sh TOOL DIR}" dir="${2:?usage: bench/carry_tool.sh TOOL DIR}"
binary=$(command -v "$tool") || { echo "no $tool here: apt-get install it" >&2; exit 1; }
mkdir -p "$dir/lib"
cp "$binary" "$dir/$tool.bin"
ldd "$binary" | awk '$3 ~ /^\// && $1 !~ /^(libc|libm|libdl|libpthread|librt|ld-linux[^ ]*)\.so/ { print $3 }' |
  while read -r library; do cp -L "$library" "$dir/lib/"; done
cat > "$dir/$tool" <<'WRAPPER'
#!/bin/sh
# Carried by bench/carry_tool.sh, with the libraries beside it.
here=$(dirname "$(readlink -f "$0")")
exec /lib64/ld-linux-x86-64.so.2 --library-path "$here/lib" "$here/$(basename "$0").bin" "$@"
WRAPPER
chmod +x "$dir/$tool"
ls "$dir/lib"

#!/usr/bin/env bash
# Copies this machine's ccache into DIR to be carried to a machine that has
# none (the 16-core GPU machine: whole_call_cache.sh there): DIR/ccache runs the
# copy with the shared libraries that a plain Ubuntu lacks beside it
# (hiredis; the C and C++ runtimes and zstd are everywhere).
# Usage: bench/carry_ccache.sh DIR   e.g. bench/carry_ccache.sh build-device/tools
set -euo pipefail
dir="${1:?usage: bench/carry_ccache.sh DIR}"
ccache=$(command -v ccache) || { echo "no ccache here: apt-get install ccache" >&2; exit 1; }
mkdir -p "$dir/lib"
cp "$ccache" "$dir/ccache.bin"
ldd "$ccache" | awk '$1 ~ /^libhiredis/ { print $3 }' | while read -r library; do cp -L "$library" "$dir/lib/"; done
cat > "$dir/ccache" <<'WRAPPER'
#!/bin/sh
# ccache carried by bench/carry_ccache.sh, with the libraries beside it.
here=$(dirname "$(readlink -f "$0")")
LD_LIBRARY_PATH="$here/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" exec "$here/ccache.bin" "$@"
WRAPPER
chmod +x "$dir/ccache"
"$dir/ccache" --version | head -n 1

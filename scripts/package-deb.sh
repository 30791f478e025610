#!/usr/bin/env bash
# Builds the Debian packages from a Release build without tests: cucpu (libcuda.so.1 and the
# NVRTC/nvJitLink front ends in /usr/lib/cucpu, the tools in /usr/bin, cuda.h in
# /usr/include/cucpu, the CMake package) and cucpu-dbg (their split debug information), and
# lists their files. Usage: scripts/package-deb.sh [build dir] (default: build-release)
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
out="${1:-$root/build-release}"
export CCACHE_BASEDIR="$root" CCACHE_NOHASHDIR=true
cmake -S "$root" -B "$out" -G Ninja -DCMAKE_BUILD_TYPE=Release -DBUILD_TESTING=OFF \
  -DCMAKE_INSTALL_PREFIX=/usr
cmake --build "$out"
(cd "$out" && cpack -G DEB)
for deb in "$out"/*.deb; do
  echo "== $(basename "$deb") ($(du -h "$deb" | cut -f1))"
  dpkg-deb --info "$deb" | grep -E '^ (Package|Version|Depends|Installed-Size):'
  dpkg-deb --contents "$deb" | awk '{print "  " $3, $4, $5, $6}'
done

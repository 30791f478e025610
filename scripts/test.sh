#!/usr/bin/env bash
# Installs dependencies (if missing), builds cucpu and runs the whole test suite with ctest.
set -euo pipefail
cd "$(dirname "$0")/.."

./scripts/install-deps.sh
# ccache hits across clones in different folders (CI builds a fresh clone every time).
export CCACHE_BASEDIR="$PWD" CCACHE_NOHASHDIR=true
cmake -S . -B build -G Ninja
cmake --build build
ctest --test-dir build --output-on-failure -j "$(nproc)"

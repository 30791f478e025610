#!/usr/bin/env bash
# Builds the PTX front end's libFuzzer target with clang (ASan+UBSan) and runs it for a bounded
# time over the committed seed corpus. Crashes are written to tests/fuzz/crashes/ and make the
# script fail; each one must become a regression test in tests/ptx/.
# Usage: scripts/fuzz-ptx.sh [seconds] [build dir]
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
seconds="${1:-30}"
out="${2:-$root/build/fuzz}"
clangxx="$(command -v clang++ || true)"
if [ -z "$clangxx" ]; then
  echo "fuzz-ptx: clang++ not found, skipping"
  exit 77
fi
mkdir -p "$out/work" "$root/tests/fuzz/crashes"
"$clangxx" -std=c++20 -O1 -g -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
  -I"$root/ptx/include" -I"$root/ptx/src" -I"$root/src/support/include" \
  "$root"/ptx/src/*.cpp "$root/tests/fuzz/ptx_fuzz.cpp" -o "$out/ptx_fuzz"
cp -n "$root"/tests/fuzz/corpus/* "$out/work/" 2>/dev/null || true
"$out/ptx_fuzz" "$out/work" -max_total_time="$seconds" -max_len=65536 -timeout=10 \
  -rss_limit_mb=2048 -artifact_prefix="$root/tests/fuzz/crashes/" -print_final_stats=1

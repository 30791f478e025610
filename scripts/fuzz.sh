#!/usr/bin/env bash
# Builds one of cucpu's libFuzzer targets with clang (ASan+UBSan) and runs it for a bounded time
# over its committed seed corpus. Crashes (and inputs over the time or memory budget) are written
# to tests/fuzz/crashes/ and make the script fail; each one must become a regression test.
#   ptx     the PTX front end (tests/fuzz/ptx_fuzz.cpp, corpus tests/fuzz/corpus)
#   fatbin  the fat binary container reader and its zstd/LZ4 payloads (corpus-fatbin)
#   link    nvJitLink inputs: ELF objects, cubins, fat binaries, ar archives (corpus-link)
# Usage: scripts/fuzz.sh ptx|fatbin|link [seconds] [build dir]
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
target="${1:?usage: fuzz.sh ptx|fatbin|link [seconds] [build dir]}"
seconds="${2:-30}"
out="${3:-$root/build/fuzz}/$target"
clangxx="$(command -v clang++ || true)"
if [ -z "$clangxx" ]; then
  echo "fuzz: clang++ not found, skipping"
  exit 77
fi
inc=(-I"$root/src/support/include" -I"$root/ptx/include" -I"$root/ptx/src" -I"$root/src/rtc/include")
case "$target" in
ptx)
  sources=("$root"/ptx/src/*.cpp) corpus=corpus libs=()
  mkdir -p "$out/generated" # the instruction table, as the build generates it
  python3 "$root/scripts/gen_ptx_table.py" "$root/ptx/isa/instructions.def" \
    "$out/generated/ptx_table.inc" "$out/generated/ptx-coverage.md"
  inc+=(-I"$out/generated")
  ;;
fatbin) sources=("$root/src/support/fatbin_container.cpp") corpus=corpus-fatbin libs=(-lzstd -llz4) ;;
link)
  sources=("$root/src/rtc/link_inputs.cpp" "$root/src/support/fatbin_container.cpp")
  corpus=corpus-link libs=(-lzstd -llz4)
  ;;
*)
  echo "fuzz: unknown target '$target'" >&2
  exit 2
  ;;
esac
mkdir -p "$out/work" "$root/tests/fuzz/crashes"
"$clangxx" -std=c++20 -O1 -g -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
  -DFMT_HEADER_ONLY=1 "${inc[@]}" "${sources[@]}" "$root/tests/fuzz/${target}_fuzz.cpp" \
  -o "$out/fuzz" "${libs[@]}"
cp -n "$root/tests/fuzz/$corpus"/* "$out/work/" 2>/dev/null || true
"$out/fuzz" "$out/work" -max_total_time="$seconds" -max_len=65536 -timeout=10 \
  -rss_limit_mb=2048 -artifact_prefix="$root/tests/fuzz/crashes/$target-" -print_final_stats=1

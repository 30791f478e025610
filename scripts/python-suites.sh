#!/usr/bin/env bash
# The Python clients' suites on cucpu, in full (CI runs a subset: ctest -L python): numba-cuda's
# whole test suite, then CuPy and cuda-python. Prints one summary line per client.
# Usage: scripts/python-suites.sh [BUILD_DIR]   (default: build)
set -uo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
lib="$(cd "${1:-$root/build}/lib" && pwd)"
summary=()
for client in numba cupy bindings; do
  out="$("$root/tests/python/run.sh" "$client" "$lib" full 2>&1)"
  rc=$?
  echo "$out" | tail -40
  line="$(echo "$out" | grep -E '^[a-z-]+( smoke)?: [0-9]+ passed' | tail -1)"
  [ "$rc" -eq 77 ] && line="$client: skipped (PyPI could not be reached)"
  summary+=("${line:-$client: no result (exit $rc)}")
done
printf '%s\n' "" "${summary[@]}"

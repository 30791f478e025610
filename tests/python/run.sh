#!/usr/bin/env bash
# The python stage: runs one client's tests on cucpu with nothing set but the loader path.
# Usage: run.sh numba|cupy|bindings|sanitizer LIBDIR [full]
#   numba     numba-cuda's own tests: the modules of numba_subset.txt, or all with `full`
#   cupy      cupy_smoke.py (CuPy with default settings), then CuPy's own tests: the files of
#             cupy_subset.txt, or with `full` the folders issue 16 names
#   bindings  cuda_bindings_smoke.py (cuda.bindings driver, runtime, NVRTC; cuda.core)
#   sanitizer numba-cuda and CuPy cases under cucpu-sanitizer (tests/sanitizer/python_cases.py)
# Prints "<client>: N passed, M failed"; exits 77 (skipped) when PyPI cannot be reached.
set -uo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
client="$1" libdir="$(cd "$2" && pwd)" scope="${3:-subset}"
venv="$("$here/venv.sh")" || exit $?
export LD_LIBRARY_PATH="$libdir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
py="$venv/bin/python"
case "$client" in
numba)
  if [ "$scope" = full ]; then
    modules=(numba.cuda.tests)
  else
    mapfile -t modules < <(grep -v '^#' "$here/numba_subset.txt")
  fi
  log="$(mktemp)"
  "$py" -m numba.runtests -m "$(nproc)" "${modules[@]}" >"$log" 2>&1
  rc=$?
  ran=$(grep -a -oE '^Ran [0-9]+ tests' "$log" | grep -oE '[0-9]+' || echo 0)
  failed=$(grep -a -cE '^(FAIL|ERROR):' "$log")
  skipped=$(grep -a -oE 'skipped=[0-9]+' "$log" | grep -oE '[0-9]+' || echo 0)
  xfail=$(grep -a -oE 'expected failures=[0-9]+' "$log" | grep -oE '[0-9]+' || echo 0)
  [ "$rc" -ne 0 ] && grep -a -E -A15 '^(FAIL|ERROR):' "$log" | head -200
  echo "numba-cuda: $((ran - failed - skipped - xfail)) passed, $failed failed, $skipped skipped"
  rm -f "$log"
  [ "$ran" -gt 0 ] && exit "$rc"
  exit 1
  ;;
cupy)
  "$py" "$here/cupy_smoke.py" || exit $?
  tests="$("$here/client_tests.sh" cupy)" || exit $?
  if [ "$scope" = full ]; then
    targets=(cupy_tests/{core,math,sorting,statistics,random,creation,manipulation,indexing}_tests)
  else
    mapfile -t targets < <(grep -v '^#' "$here/cupy_subset.txt")
  fi
  log="$(mktemp)"
  (cd "$tests" && "$py" -m pytest -q -m "not slow" -p no:cacheprovider "${targets[@]}") >"$log" 2>&1
  rc=$?
  summary="$(grep -aE '^=* ?[0-9]+ (passed|failed)' "$log" | tail -1)"
  count() { echo "$summary" | grep -oE "[0-9]+ $1" | grep -oE '[0-9]+' || echo 0; }
  [ "$rc" -ne 0 ] && grep -aE '^(FAILED|ERROR) ' "$log" | head -100
  echo "cupy: $(count passed) passed, $(($(count failed) + $(count error))) failed, $(count skipped) skipped"
  rm -f "$log"
  exit "$rc"
  ;;
bindings) exec "$py" "$here/cuda_bindings_smoke.py" ;;
sanitizer)
  # numba-cuda and CuPy under cucpu-sanitizer against compute-sanitizer's verdicts on an H200.
  root="$(cd "$here/../.." && pwd)"
  failed=0
  for c in numba_ok numba_oob cupy_ok cupy_oob; do
    "$py" "$root/tests/sanitizer/compare_memcheck.py" --sanitizer "$libdir/../bin/cucpu-sanitizer" \
      --python "$py" --program "$root/tests/sanitizer/python_cases.py" \
      --answers "$root/tests/gpu/answers/sanitizer" "$c" || failed=$((failed + 1))
  done
  echo "sanitizer: $((4 - failed)) passed, $failed failed"
  exit "$failed"
  ;;
*)
  echo "usage: run.sh numba|cupy|bindings|sanitizer LIBDIR [full]" >&2
  exit 2
  ;;
esac

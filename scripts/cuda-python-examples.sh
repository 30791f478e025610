#!/usr/bin/env bash
# Runs NVIDIA's cuda-python examples (cuda_bindings/examples and cuda_core/examples of a
# cuda-python checkout, which PyPI does not ship) one process each, and prints one line per example
# (pass, fail with its exit status, or skipped when the example says a requirement is not met),
# then a summary line. With LIBDIR the examples run on cucpu (the loader path); without it, on the
# machine's driver (the GPU baseline). Examples newer than the installed cuda-bindings may import
# its unreleased `cuda.bindings._example_helpers`: the checkout's copy is used then.
# Usage: scripts/cuda-python-examples.sh CHECKOUT [LIBDIR] [PYTHON]
set -uo pipefail
checkout="$(cd "$1" && pwd)"
if [ -n "${2:-}" ]; then
  export LD_LIBRARY_PATH="$(cd "$2" && pwd)${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
fi
py="${3:-python3}"
# Examples exit with this status when a requirement is not met (two GPUs, an interop API).
export CUDA_BINDINGS_SKIP_EXAMPLE=77
helpers="$checkout/cuda_bindings/cuda/bindings"
runner='import runpy, sys, cuda.bindings
p = sys.argv[1]
if p not in cuda.bindings.__path__:
    cuda.bindings.__path__.append(p)
sys.argv = sys.argv[2:]
runpy.run_path(sys.argv[0], run_name="__main__")'
passed=0 failed=0 skipped=0
for f in "$checkout"/cuda_bindings/examples/*/*.py "$checkout"/cuda_core/examples/*.py; do
  case "$f" in */common/* | *_test.py) continue ;; esac
  name="${f#"$checkout"/}"
  log="$(mktemp)"
  (cd "$(dirname "$f")" && timeout 300 "$py" -c "$runner" "$helpers" "$f") >"$log" 2>&1
  rc=$?
  if [ "$rc" -eq 0 ]; then
    passed=$((passed + 1)) && echo "pass    $name"
  elif [ "$rc" -eq 77 ]; then
    skipped=$((skipped + 1)) && echo "skipped $name: $(tail -1 "$log")"
  else
    failed=$((failed + 1)) && echo "fail    $name (exit $rc): $(grep -v '^\s*$' "$log" | tail -1)"
  fi
  rm -f "$log"
done
echo "cuda-python examples: $passed passed, $failed failed, $skipped skipped"

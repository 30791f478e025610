#!/usr/bin/env bash
# Runs a recorder of this folder on cucpu and compares what it prints with the GPU's answers.
# Usage: compare_answers.sh ANSWERS RECORDER [ARGS...]; fails with a diff on any difference.
set -uo pipefail
answers="$1"
shift
out="$(mktemp)"
trap 'rm -f "$out"' EXIT
timeout 120 "$@" >"$out" || { echo "recorder failed: $*"; exit 1; }
diff -u --label "GPU ($answers)" --label cucpu "$answers" "$out"

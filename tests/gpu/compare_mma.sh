#!/bin/sh
# Runs record_mma (built against cucpu) for the tests recorded in tests/gpu/answers/mma and
# compares each configuration's D with the GPU's, byte for byte. Usage:
# compare_mma.sh <record_mma> <mma_kernels.ptx> <answers dir> [config...]
set -e
recorder=$1 ptx=$2 answers=$3
shift 3
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
"$recorder" "$ptx" "$out" 32 "$@"
status=0
for want in "$answers"/*.bin; do
  name=$(basename "$want")
  [ -f "$out/$name" ] || continue
  if ! cmp -s "$out/$name" "$want"; then
    echo "differs from the GPU: ${name%.bin} ($(cmp "$out/$name" "$want" | head -1))"
    status=1
  else
    echo "matches the GPU: ${name%.bin}"
  fi
done
exit $status

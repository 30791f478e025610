#!/bin/sh
# A SASS-only program must fail and tell the user how to rebuild: fails_sass_only.sh LIBCUDA PROGRAM
out=$(LD_LIBRARY_PATH=$(dirname "$1") "$2" 2>&1)
rc=$?
echo "$out"
[ $rc -ne 0 ] || { echo "expected a failure"; exit 1; }
echo "$out" | grep -q -- "-gencode arch=compute_80,code=compute_80" || exit 1

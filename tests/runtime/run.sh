#!/bin/sh
# Runs a runtime-API test program on cucpu: run.sh libpath|preload LIBCUDA PROGRAM [REGEX...]
# Passes when the program exits 0 and prints PASS and every REGEX (matched against its output).
mode=$1 lib=$2 program=$3
shift 3
case $mode in
  libpath) out=$(LD_LIBRARY_PATH=$(dirname "$lib") "$program" 2>&1) ;;
  preload) out=$(LD_PRELOAD=$lib "$program" 2>&1) ;;
  *) echo "unknown mode $mode"; exit 2 ;;
esac
rc=$?
echo "$out"
[ $rc -eq 0 ] || { echo "run.sh: exit status $rc"; exit 1; }
echo "$out" | grep -q '^PASS' || { echo "run.sh: no PASS line"; exit 1; }
for re in "$@"; do
  echo "$out" | grep -q -- "$re" || { echo "run.sh: output lacks '$re'"; exit 1; }
done

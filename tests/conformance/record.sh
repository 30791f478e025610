#!/bin/sh
# Records the expected outputs on a machine with an NVIDIA GPU and its driver: builds the
# recorder against NVIDIA's libcuda, runs every case and writes expected/<stem>.txt plus
# expected/GPU.txt (nvidia-smi, driver and compiler versions). Usage: record.sh <output dir>
# [stem...] (only those files' cases; the default is every file of cases/cases.list)
set -e
here=$(cd "$(dirname "$0")" && pwd)
out=${1:?output dir}
shift
mkdir -p "$out"
cases="$here/cases"
if [ $# -gt 0 ]; then
  cases=$(mktemp -d)
  cp "$here/cases/conf.cuh" "$cases/"
  for stem in "$@"; do
    cp "$here/cases/$stem.cu" "$here/cases/$stem.ptx" "$cases/"
    echo "$stem" >> "$cases/cases.list"
  done
fi
CUDA=${CUDA_HOME:-/usr/local/cuda}
g++ -std=c++17 -O2 -I"$CUDA/include" -I"$here/../../include" "$here/harness.cpp" "$here/record_main.cpp" \
    -L"$CUDA/lib64/stubs" -L"$CUDA/targets/x86_64-linux/lib/stubs" -lcuda -o "$out/recorder"
{
  echo "# recorded $(date -u +%Y-%m-%dT%H:%M:%SZ) by tests/conformance/record.sh"
  nvidia-smi --query-gpu=name,driver_version,compute_cap,memory.total --format=csv
  nvidia-smi | head -4 | tail -2
  "$CUDA/bin/nvcc" --version | tail -2
} > "$out/GPU.txt" 2>&1 || true
timeout 500 "$out/recorder" "$cases" "$out" 2> "$out/record.log" || echo "recorder exit $?" >> "$out/record.log"
rm -f "$out/recorder"

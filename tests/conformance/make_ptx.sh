#!/bin/sh
# Regenerates cases/<stem>.ptx from cases/<stem>.cu with nvcc (the "// arch:" line of each file
# names its virtual architecture) and checks each with ptxas for sm_90 when ptxas is present.
# Files marked "// ptx: hand-written" keep their committed PTX (only checked).
set -e
cd "$(dirname "$0")/cases"
for stem in $(cat cases.list); do
  if grep -q '^// ptx: hand-written' "$stem.cu"; then
    if command -v ptxas >/dev/null; then ptxas -arch=sm_90 -o /dev/null "$stem.ptx"; fi
    continue
  fi
  arch=$(sed -n 's|^// arch: *||p' "$stem.cu")
  nvcc -w -ptx -arch="$arch" -o "$stem.ptx" "$stem.cu"
  if command -v ptxas >/dev/null; then ptxas -arch=sm_90 -o /dev/null "$stem.ptx"; fi
done

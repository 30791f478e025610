#!/usr/bin/env bash
# Installs the bench suite's extra dependencies (PoCL's OpenCL CPU device, ICD loader, headers;
# FFTW for the cuFFT bench). Idempotent.
set -euo pipefail

packages=(pocl-opencl-icd ocl-icd-opencl-dev opencl-headers libfftw3-single3)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "install-bench-deps: all bench dependencies present"
  exit 0
fi

sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
echo "install-bench-deps: installing ${missing[*]}"
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"

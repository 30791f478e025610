#!/usr/bin/env bash
# Regenerates the fat binaries of the fatbin unit tests with nvcc (CUDA 13).
set -euo pipefail
cd "$(dirname "$0")"
k=fatbin_kernel.cu
nvcc -fatbin -gencode arch=compute_75,code=compute_75 -gencode arch=compute_80,code=compute_80 \
     -gencode arch=compute_90,code=compute_90 -o fatbin_multi_zstd.fatbin $k
nvcc -fatbin -gencode arch=compute_75,code=compute_75 --compress-mode=speed -o fatbin_lz4.fatbin $k
nvcc -fatbin -gencode arch=compute_75,code=compute_75 --compress-mode=none -o fatbin_none.fatbin $k
nvcc -fatbin -arch=sm_80 -o fatbin_sm80.fatbin $k
nvcc -fatbin -gencode arch=compute_80,code=sm_80 -o fatbin_sass.fatbin $k

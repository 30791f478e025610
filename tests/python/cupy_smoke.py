"""CuPy with default settings on cucpu: NVRTC-compiled kernels (cubins by default), reductions,
user kernels, Thrust sort and cuRAND, each checked against NumPy on the host."""
import sys

import cupy as cp
import numpy as np

failures = []


def check(name, got, want, exact=True):
    got = cp.asnumpy(got)
    ok = np.array_equal(got, want) if exact else np.allclose(got, want, rtol=1e-5, atol=1e-6)
    print(f"{'ok  ' if ok else 'FAIL'} {name}")
    if not ok:
        failures.append(name)


x = np.arange(4096, dtype=np.float32) / 7
d = cp.asarray(x)
check("elementwise", d * 3 + 1, x * 3 + 1)
check("reduction sum", d.sum(), np.float32(x.astype(np.float64).sum()), exact=False)
check("reduction max", d.max(), x.max())
check("argmin", cp.argmin(d[::-1]), np.argmin(x[::-1]))
check("cumsum", cp.cumsum(cp.arange(1000)), np.cumsum(np.arange(1000)))
raw = cp.RawKernel(r'''
extern "C" __global__ void saxpy(float a, const float *x, float *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
}''', "saxpy")
y = cp.ones(4096, dtype=cp.float32)
raw((16,), (256,), (cp.float32(2.5), d, y, cp.int32(4096)))
check("RawKernel", y, np.float32(2.5) * x + 1)
mod = cp.RawModule(code=r'''
template <typename T> __global__ void twice(T *a) { a[threadIdx.x] *= 2; }
template __global__ void twice<int>(int *);''', name_expressions=["twice<int>"])
a = cp.arange(64, dtype=cp.int32)
mod.get_function("twice<int>")((1,), (64,), (a,))
check("RawModule template", a, np.arange(64, dtype=np.int32) * 2)
ew = cp.ElementwiseKernel("float32 a, float32 b", "float32 c", "c = a * b - 1", "mulsub")
# NVRTC contracts a * b - 1 into one fused multiply-add, as on a GPU: one rounding.
x64 = x.astype(np.float64)
check("ElementwiseKernel", ew(d, d), (x64 * x64 - 1).astype(np.float32))
red = cp.ReductionKernel("int32 v", "int64 s", "v * v", "a + b", "s = a", "0", "sumsq")
check("ReductionKernel", red(cp.arange(1000, dtype=cp.int32)),
      np.int64((np.arange(1000, dtype=np.int64) ** 2).sum()))
rng = np.random.default_rng(7)
keys = rng.integers(-10**6, 10**6, 100000).astype(np.int64)
check("sort", cp.sort(cp.asarray(keys)), np.sort(keys))
check("argsort stable", cp.argsort(cp.asarray(keys % 97)), np.argsort(keys % 97, kind="stable"))
u = cp.random.default_rng(1).random(200000, dtype=cp.float64)
uh = cp.asnumpy(u)
ok = 0.0 <= uh.min() and uh.max() < 1.0 and abs(uh.mean() - 0.5) < 0.01
print(f"{'ok  ' if ok else 'FAIL'} random uniform")
if not ok:
    failures.append("random uniform")
print(f"cupy smoke: {13 - len(failures)} passed, {len(failures)} failed")
sys.exit(1 if failures else 0)

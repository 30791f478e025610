"""Python clients under a sanitizer: `python_cases.py NAME` runs one case (numba-cuda or CuPy),
legal code or a planted out-of-bounds store, and prints what the program saw. compute-sanitizer's
verdicts on an H200 are in tests/gpu/answers/sanitizer/ (tests/gpu/record_sanitizer.sh)."""
import sys


def numba_kernels():
    import numpy as np
    from numba import cuda

    @cuda.jit(lineinfo=True)
    def add(a, b, out):
        i = cuda.grid(1)
        if i < out.size:
            out[i] = a[i] + b[i]

    @cuda.jit(lineinfo=True)
    def reverse_in_shared(a, out):
        s = cuda.shared.array(128, dtype=np.float32)
        t = cuda.threadIdx.x
        s[t] = a[cuda.grid(1)]
        cuda.syncthreads()
        out[cuda.grid(1)] = s[127 - t]

    @cuda.jit(lineinfo=True)
    def store_past_end(out, shift):
        out[cuda.grid(1) + shift] = 1.0

    return np, cuda, add, reverse_in_shared, store_past_end


def numba_ok():
    np, cuda, add, reverse_in_shared, _ = numba_kernels()
    n = 1000
    a = np.arange(n, dtype=np.float32)
    out = cuda.device_array(n, dtype=np.float32)
    add[(n + 127) // 128, 128](cuda.to_device(a), cuda.to_device(np.ones(n, np.float32)), out)
    r = cuda.device_array(1024, dtype=np.float32)
    reverse_in_shared[8, 128](cuda.to_device(np.arange(1024, dtype=np.float32)), r)
    print("numba_ok:", bool(np.allclose(out.copy_to_host(), a + 1)), r.copy_to_host()[0])


def numba_oob():
    np, cuda, _, _, store_past_end = numba_kernels()
    try:
        store_past_end[1, 32](cuda.device_array(32, dtype=np.float32), 5)
        cuda.synchronize()
        print("numba_oob: no error")
    except Exception as e:  # the launch failure the sanitizer causes
        print("numba_oob:", type(e).__name__)


def cupy_ok():
    import cupy as cp
    x = cp.arange(10000, dtype=cp.float32)
    z = cp.sort(cp.random.rand(5000))
    print("cupy_ok:", float((x * 2 + 1).sum()), bool((z[1:] >= z[:-1]).all()))
    del x, z
    cp.get_default_memory_pool().free_all_blocks()  # what is left is a leak


def cupy_oob():
    import cupy as cp
    cp.cuda.set_allocator(None)  # a pool's block lies inside a larger allocation: unchecked
    k = cp.RawKernel(r'''
extern "C" __global__ void store_past_end(float *a, int shift) { a[threadIdx.x + shift] = 1.0f; }
''', 'store_past_end')
    a = cp.zeros(32, dtype=cp.float32)
    k((1,), (32,), (a, cp.int32(1)))
    try:
        cp.cuda.runtime.deviceSynchronize()
        print("cupy_oob: no error")
    except Exception as e:
        print("cupy_oob:", type(e).__name__)


if __name__ == "__main__":
    {"numba_ok": numba_ok, "numba_oob": numba_oob, "cupy_ok": cupy_ok,
     "cupy_oob": cupy_oob}[sys.argv[1]]()

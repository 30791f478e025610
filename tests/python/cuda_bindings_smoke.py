"""cuda-python on cucpu, as NVIDIA's examples use it: cuda.bindings' driver, runtime and NVRTC
(compiling for the device's real architecture), a graph captured from a stream, and cuda.core's
Program and launch, each result checked against NumPy on the host."""
import sys

import numpy as np
from cuda.bindings import driver, nvrtc, runtime

failures = []


def ok(name, cond):
    print(f"{'ok  ' if cond else 'FAIL'} {name}")
    if not cond:
        failures.append(name)


def check(result):
    err, *rest = result
    if int(err) != 0:
        raise RuntimeError(f"CUDA call failed: {err!r}")
    return rest[0] if len(rest) == 1 else rest


SAXPY = b'''extern "C" __global__ void saxpy(float a, const float *x, float *y, size_t n) {
  size_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
}'''

check(driver.cuInit(0))
dev = check(driver.cuDeviceGet(0))
major = check(driver.cuDeviceGetAttribute(
    driver.CUdevice_attribute.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, dev))
minor = check(driver.cuDeviceGetAttribute(
    driver.CUdevice_attribute.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, dev))
ctx = check(driver.cuDevicePrimaryCtxRetain(dev))
check(driver.cuCtxSetCurrent(ctx))

# Runtime API (cudart inside cuda-bindings asks the driver for private tables first).
ok("runtime device count", check(runtime.cudaGetDeviceCount()) >= 1)
n = 1 << 12
host = np.arange(n, dtype=np.float32)
dptr = check(runtime.cudaMalloc(host.nbytes))
check(runtime.cudaMemcpy(dptr, host.ctypes.data, host.nbytes,
                         runtime.cudaMemcpyKind.cudaMemcpyHostToDevice))
back = np.zeros_like(host)
check(runtime.cudaMemcpy(back.ctypes.data, dptr, host.nbytes,
                         runtime.cudaMemcpyKind.cudaMemcpyDeviceToHost))
ok("runtime memcpy round trip", np.array_equal(back, host))
check(runtime.cudaFree(dptr))

# NVRTC for the real architecture (a cubin), loaded and launched through the driver.
prog = check(nvrtc.nvrtcCreateProgram(SAXPY, b"saxpy.cu", 0, [], []))
arch = f"--gpu-architecture=sm_{major}{minor}".encode()
check(nvrtc.nvrtcCompileProgram(prog, 1, [arch]))
size = check(nvrtc.nvrtcGetCUBINSize(prog))
cubin = b" " * size
check(nvrtc.nvrtcGetCUBIN(prog, cubin))
module = check(driver.cuModuleLoadData(cubin))
kernel = check(driver.cuModuleGetFunction(module, b"saxpy"))
x = np.random.default_rng(3).random(n, dtype=np.float32)
y = np.ones(n, dtype=np.float32)
dx = check(driver.cuMemAlloc(x.nbytes))
dy = check(driver.cuMemAlloc(y.nbytes))
check(driver.cuMemcpyHtoD(dx, x.ctypes.data, x.nbytes))
check(driver.cuMemcpyHtoD(dy, y.ctypes.data, y.nbytes))
a = np.array([2.0], dtype=np.float32)
args = [a, np.array([int(dx)], dtype=np.uint64), np.array([int(dy)], dtype=np.uint64),
        np.array([n], dtype=np.uint64)]
ptrs = np.array([arg.ctypes.data for arg in args], dtype=np.uint64)
check(driver.cuLaunchKernel(kernel, n // 128, 1, 1, 128, 1, 1, 0, 0, ptrs.ctypes.data, 0))
check(driver.cuCtxSynchronize())
out = np.zeros_like(y)
check(driver.cuMemcpyDtoH(out.ctypes.data, dy, out.nbytes))
# NVRTC contracts a * x + y into one fused multiply-add: one rounding, exact in float64.
want = (np.float64(2.0) * x.astype(np.float64) + 1.0).astype(np.float32)
ok("nvrtc sm_XX cubin launch", np.array_equal(out, want))

# A CUDA graph captured from a stream: two saxpy launches, replayed twice.
check(driver.cuMemcpyHtoD(dy, y.ctypes.data, y.nbytes))
cap = check(driver.cuStreamCreate(driver.CUstream_flags.CU_STREAM_NON_BLOCKING))
check(driver.cuStreamBeginCapture(cap, driver.CUstreamCaptureMode.CU_STREAM_CAPTURE_MODE_GLOBAL))
for _ in range(2):
    check(driver.cuLaunchKernel(kernel, n // 128, 1, 1, 128, 1, 1, 0, cap, ptrs.ctypes.data, 0))
graph = check(driver.cuStreamEndCapture(cap))
nodes = check(driver.cuGraphGetNodes(graph, 0))[1]
exe = check(driver.cuGraphInstantiate(graph, 0))
for _ in range(2):
    check(driver.cuGraphLaunch(exe, cap))
check(driver.cuStreamSynchronize(cap))
check(driver.cuMemcpyDtoH(out.ctypes.data, dy, out.nbytes))
want = y.copy()
for _ in range(4):  # one rounding per fused multiply-add, each exact in float64
    want = (np.float64(2.0) * x.astype(np.float64) + want.astype(np.float64)).astype(np.float32)
ok("captured graph replayed", nodes == 2 and np.array_equal(out, want))
check(driver.cuGraphExecDestroy(exe))
check(driver.cuGraphDestroy(graph))
check(driver.cuStreamDestroy(cap))
check(driver.cuModuleUnload(module))
check(driver.cuMemFree(dx))
check(driver.cuMemFree(dy))

# cuda.core: Program (NVRTC) and launch on a stream.
from cuda.core import Device, LaunchConfig, Program, ProgramOptions, launch  # noqa: E402

device = Device()
device.set_current()
stream = device.create_stream()
code = r'''extern "C" __global__ void fill(int *a, int v) { a[threadIdx.x] = v + threadIdx.x; }'''
program = Program(code, code_type="c++", options=ProgramOptions(arch=f"sm_{major}{minor}"))
mod = program.compile("cubin")
buf = device.memory_resource.allocate(64 * 4, stream=stream)
launch(stream, LaunchConfig(grid=1, block=64), mod.get_kernel("fill"), buf, np.int32(40))
stream.sync()
got = np.zeros(64, dtype=np.int32)
check(driver.cuMemcpyDtoH(got.ctypes.data, int(buf.handle), got.nbytes))
ok("cuda.core Program cubin launch", np.array_equal(got, np.arange(64, dtype=np.int32) + 40))
buf.close(stream)

print(f"cuda-bindings smoke: {5 - len(failures)} passed, {len(failures)} failed")
sys.exit(1 if failures else 0)

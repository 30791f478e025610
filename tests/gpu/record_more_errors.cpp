// Prints NVIDIA's driver's codes for the misuse of library, kernel, memory, occupancy, callback
// and context calls that tests/api/more_errors_test.cpp checks in cucpu.
// Usage: record_more_errors tests/api/errors/counter.ptx
#include "record.h"

#include <cuda.h>

#include <cstdio>

static void CUDA_CB callback(CUstream, CUresult, void *) {}

int main(int argc, char **argv) {
  if (argc != 2)
    return 2;
  std::string ptx = readFile(argv[1]);
  CUcontext c;
  CUlibrary lib = nullptr;
  CUkernel k = nullptr, ks[4] = {};
  CUmodule mod = nullptr;
  CUlibrary owner = nullptr;
  CUdeviceptr p = 0, d = 0, m = 0;
  size_t bytes = 0, freeB = 0, totalB = 0;
  unsigned flags = 0;
  int v = 0, minGrid = 0, block = 0;
  CUstream s;
  CUsharedconfig sc;
  SHOW(cuInit(0));
  SHOW(cuCtxCreate(&c, nullptr, 0, 0));
  SHOW(cuCtxGetFlags(&flags));
  SHOW(cuCtxGetFlags(nullptr));
  SHOW(cuCtxGetSharedMemConfig(&sc));
  SHOW(cuCtxGetSharedMemConfig(nullptr));
  SHOW(cuCtxResetPersistingL2Cache());
  SHOW(cuLibraryLoadData(&lib, ptx.c_str(), nullptr, nullptr, 0, nullptr, nullptr, 0));
  SHOW(cuLibraryGetKernel(&k, lib, "bump"));
  SHOW(cuLibraryGetGlobal(&d, &bytes, lib, "counter"));
  std::printf("counter bytes %zu\n", bytes);
  SHOW(cuLibraryGetGlobal(&d, &bytes, lib, "missing"));
  SHOW(cuLibraryGetGlobal(&d, &bytes, nullptr, "counter"));
  SHOW(cuLibraryGetGlobal(&d, &bytes, lib, nullptr));
  SHOW(cuLibraryGetManaged(&d, &bytes, lib, "counter"));
  SHOW(cuLibraryGetManaged(&d, &bytes, lib, "missing"));
  {
    CUdeviceptr managed = 0, plain = 0;
    unsigned isManaged = 9, plainManaged = 9;
    SHOW(cuLibraryGetManaged(&managed, &bytes, lib, "shared"));
    SHOW(cuPointerGetAttribute(&isManaged, CU_POINTER_ATTRIBUTE_IS_MANAGED, managed));
    SHOW(cuLibraryGetGlobal(&plain, &bytes, lib, "counter"));
    SHOW(cuPointerGetAttribute(&plainManaged, CU_POINTER_ATTRIBUTE_IS_MANAGED, plain));
    std::printf("IS_MANAGED of __managed__ shared: %u, of counter: %u\n", isManaged, plainManaged);
  }
  SHOW(cuLibraryGetModule(&mod, lib));
  SHOW(cuLibraryGetModule(nullptr, lib));
  SHOW(cuLibraryGetModule(&mod, nullptr));
  SHOW(cuLibraryEnumerateKernels(ks, 1, lib));
  SHOW(cuLibraryEnumerateKernels(ks, 4, lib));
  SHOW(cuLibraryEnumerateKernels(nullptr, 1, lib));
  SHOW(cuLibraryEnumerateKernels(ks, 1, nullptr));
  SHOW(cuKernelGetLibrary(&owner, k));
  SHOW(cuKernelGetLibrary(nullptr, k));
  SHOW(cuKernelGetLibrary(&owner, nullptr));
  SHOW(cuKernelGetAttribute(&v, CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, k, 0));
  SHOW(cuKernelGetAttribute(nullptr, CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, k, 0));
  SHOW(cuKernelGetAttribute(&v, static_cast<CUfunction_attribute>(99), k, 0));
  SHOW(cuKernelGetAttribute(&v, CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, nullptr, 0));
  SHOW(cuKernelGetAttribute(&v, CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, k, 99));
  SHOW(cuKernelSetAttribute(CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, 1024, k, 0));
  SHOW(cuKernelSetAttribute(CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, 64, k, 0));
  SHOW(cuKernelSetAttribute(CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, 1 << 30, k, 0));
  SHOW(cuKernelSetAttribute(CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, 1024, nullptr, 0));
  SHOW(cuKernelSetCacheConfig(k, CU_FUNC_CACHE_PREFER_L1, 0));
  SHOW(cuKernelSetCacheConfig(k, static_cast<CUfunc_cache>(9), 0));
  SHOW(cuKernelSetCacheConfig(nullptr, CU_FUNC_CACHE_PREFER_L1, 0));
  CUfunction fn = nullptr;
  SHOW(cuModuleGetFunction(&fn, mod, "bump"));
  SHOW(cuOccupancyMaxPotentialBlockSizeWithFlags(&minGrid, &block, fn, nullptr, 0, 0, 0));
  SHOW(cuOccupancyMaxPotentialBlockSizeWithFlags(&minGrid, &block, nullptr, nullptr, 0, 0, 0));
  SHOW(cuOccupancyMaxPotentialBlockSizeWithFlags(nullptr, &block, fn, nullptr, 0, 0, 0));
  SHOW(cuOccupancyMaxPotentialBlockSizeWithFlags(&minGrid, &block, fn, nullptr, 0, 0, 99));
  SHOW(cuMemGetInfo(&freeB, &totalB));
  SHOW(cuMemGetInfo(nullptr, &totalB));
  SHOW(cuMemGetInfo(&freeB, nullptr));
  SHOW(cuMemAllocManaged(&m, 0, CU_MEM_ATTACH_GLOBAL));
  SHOW(cuMemAllocManaged(&m, 64, 0));
  SHOW(cuMemAllocManaged(&m, 64, CU_MEM_ATTACH_SINGLE));
  SHOW(cuMemAllocManaged(nullptr, 64, CU_MEM_ATTACH_GLOBAL));
  SHOW(cuMemAlloc(&p, 4096));
  SHOW(cuMemcpyDtoD(p, p + 2048, 2048));
  SHOW(cuMemcpyDtoD(p, p + 2048, 4096));
  SHOW(cuMemsetD8(p, 1, 4096));
  SHOW(cuMemsetD8(p, 1, 4097));
  SHOW(cuMemsetD16(p, 1, 2048));
  SHOW(cuMemsetD16(p + 1, 1, 4));
  SHOW(cuMemsetD2D16(p, 64, 1, 32, 64));
  SHOW(cuMemsetD2D16(p + 1, 64, 1, 8, 4));
  SHOW(cuMemsetD2D16(p, 62, 1, 8, 4));
  SHOW(cuMemsetD2D16(p, 16, 1, 32, 4));
  CUDA_MEMCPY2D cp = {};
  cp.srcMemoryType = CU_MEMORYTYPE_DEVICE;
  cp.srcDevice = p;
  cp.srcPitch = 64;
  cp.dstMemoryType = CU_MEMORYTYPE_DEVICE;
  cp.dstDevice = p + 2048;
  cp.dstPitch = 64;
  cp.WidthInBytes = 64;
  cp.Height = 8;
  SHOW(cuMemcpy2DUnaligned(&cp));
  cp.dstPitch = 32;
  SHOW(cuMemcpy2DUnaligned(&cp));
  SHOW(cuMemcpy2DUnaligned(nullptr));
  SHOW(cuStreamCreate(&s, 0));
  SHOW(cuStreamAddCallback(s, callback, nullptr, 0));
  SHOW(cuStreamAddCallback(s, nullptr, nullptr, 0));
  SHOW(cuStreamAddCallback(s, callback, nullptr, 1));
  SHOW(cuLaunchHostFunc(s, nullptr, nullptr));
  SHOW(cuStreamSynchronize(s));
  SHOW(cuLibraryUnload(lib));
  SHOW(cuCtxDestroy(c));
  return 0;
}

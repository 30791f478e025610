// Prints what NVIDIA's driver answers for what the Python CUDA stack asks beyond the documented
// API: the layout of the private tables newer runtimes and cuFFT request (size header, then each
// slot as 0, a small number or a function), the profiler calls numba makes, and the function
// attributes numba checks (registers, constant, local and shared bytes). tests/api checks cucpu
// against these answers.
#include "record.h"

#include <cuda.h>
#include <cudaProfiler.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <thread>
#include <vector>

namespace {

void dumpTable(const char *name, const unsigned char (&bytes)[16]) {
  CUuuid id;
  std::memcpy(id.bytes, bytes, 16);
  const void *table = nullptr;
  CUresult r = cuGetExportTable(&table, &id);
  std::printf("table %s: rc %d", name, int(r));
  if (r != CUDA_SUCCESS || !table) {
    std::printf("\n");
    return;
  }
  const auto *slots = static_cast<const uintptr_t *>(table);
  const uintptr_t header = slots[0];
  const size_t count = header > 0 && header <= 4096 && header % 8 == 0 ? header / 8 : 16;
  std::printf(" slot0 %#lx, %zu slots:", static_cast<unsigned long>(header), count);
  for (size_t i = 1; i < count; ++i) {
    uintptr_t v = slots[i];
    if (v == 0)
      std::printf(" %zu:0", i);
    else if (v < 0x100000)
      std::printf(" %zu:n%lu", i, static_cast<unsigned long>(v));
    else
      std::printf(" %zu:f", i);
  }
  std::printf("\n");
}


void attributes(const std::string &ptx, unsigned maxRegisters) {
  CUmodule mod = nullptr;
  CUjit_option opt = CU_JIT_MAX_REGISTERS;
  void *value = reinterpret_cast<void *>(uintptr_t(maxRegisters));
  CUresult r = maxRegisters ? cuModuleLoadDataEx(&mod, ptx.c_str(), 1, &opt, &value)
                            : cuModuleLoadData(&mod, ptx.c_str());
  std::printf("load (max registers %u): %d\n", maxRegisters, int(r));
  CUfunction f;
  if (r != CUDA_SUCCESS || cuModuleGetFunction(&f, mod, "attrs") != CUDA_SUCCESS)
    return;
  const struct {
    const char *name;
    CUfunction_attribute a;
  } attrs[] = {{"NUM_REGS", CU_FUNC_ATTRIBUTE_NUM_REGS},
               {"CONST_SIZE_BYTES", CU_FUNC_ATTRIBUTE_CONST_SIZE_BYTES},
               {"LOCAL_SIZE_BYTES", CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES},
               {"SHARED_SIZE_BYTES", CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES},
               {"MAX_THREADS_PER_BLOCK", CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK}};
  for (const auto &a : attrs) {
    int v = -1;
    CUresult ar = cuFuncGetAttribute(&v, a.a, f);
    std::printf("  %s: rc %d value %d\n", a.name, int(ar), v);
  }
  cuModuleUnload(mod);
}

void sleepBriefly(void *) { std::this_thread::sleep_for(std::chrono::milliseconds(50)); }

// Asynchronous copies with pageable memory behind a sleeping host function: what the host sees
// right after the calls (tests/api/pageable_copy_test.cpp).
void pageableCopies() {
  constexpr size_t n = 1024;
  CUstream s;
  CUdeviceptr d;
  cuStreamCreate(&s, CU_STREAM_NON_BLOCKING);
  cuMemAlloc(&d, n * 4);
  std::vector<unsigned> host(n, 0);
  cuLaunchHostFunc(s, sleepBriefly, nullptr);
  cuMemsetD32Async(d, 7, n, s);
  CUresult r = cuMemcpyDtoHAsync(host.data(), d, n * 4, s);
  std::printf("pageable DtoHAsync: rc %d, right after the call %u (7 = waited)\n", int(r),
              host[n - 1]);
  cuStreamSynchronize(s);
  std::fill(host.begin(), host.end(), 5u);
  cuLaunchHostFunc(s, sleepBriefly, nullptr);
  r = cuMemcpyHtoDAsync(d, host.data(), n * 4, s);
  std::fill(host.begin(), host.end(), 9u);
  cuStreamSynchronize(s);
  std::vector<unsigned> back(n, 0);
  cuMemcpyDtoH(back.data(), d, n * 4);
  std::printf("pageable HtoDAsync: rc %d, device holds %u (5 = staged at the call)\n", int(r),
              back[n - 1]);
  cuMemFree(d);
  cuStreamDestroy(s);
}

} // namespace

int main(int argc, char **argv) {
  SHOW(cuProfilerStart());
  SHOW(cuProfilerStop());
  SHOW(cuInit(0));
  SHOW(cuProfilerStart());
  SHOW(cuProfilerStop());
  SHOW(cuProfilerInitialize(nullptr, nullptr, CU_OUT_KEY_VALUE_PAIR));
  CUdevice dev;
  CUcontext ctx;
  SHOW(cuDeviceGet(&dev, 0));
  SHOW(cuCtxCreate(&ctx, nullptr, 0, dev));
  SHOW(cuProfilerStart());
  SHOW(cuProfilerStart());
  SHOW(cuProfilerStop());
  SHOW(cuProfilerStop());
  SHOW(cuProfilerInitialize(nullptr, nullptr, CU_OUT_KEY_VALUE_PAIR));
  SHOW(cuProfilerInitialize("/nonexistent/config", "/tmp/cucpu-profile.out", CU_OUT_CSV));
  SHOW(cuProfilerInitialize(nullptr, nullptr, static_cast<CUoutput_mode>(7)));

  const unsigned char kToolsContext[16] = {0x21, 0x31, 0x8c, 0x60, 0x97, 0x14, 0x32, 0x48,
                                           0x8c, 0xa6, 0x41, 0xff, 0x73, 0x24, 0xc8, 0xf2};
  const unsigned char kToolsModule[16] = {0x6e, 0x16, 0x3f, 0xbe, 0xb9, 0x58, 0x44, 0x4d,
                                          0x83, 0x5c, 0xe1, 0x82, 0xaf, 0xf1, 0x99, 0x1e};
  const unsigned char kCudart[16] = {0x6b, 0xd5, 0xfb, 0x6c, 0x5b, 0xf4, 0xe7, 0x4a,
                                     0x89, 0x87, 0xd9, 0x39, 0x12, 0xfd, 0x9d, 0xf9};
  dumpTable("21318c60", kToolsContext);
  dumpTable("6e163fbe", kToolsModule);
  dumpTable("6bd5fb6c", kCudart);

  const std::string ptx = argc > 1 ? readFile(argv[1]) : std::string(); // attrs.ptx
  attributes(ptx, 0);
  attributes(ptx, 32);
  pageableCopies();
  cuCtxDestroy(ctx);
  return 0;
}

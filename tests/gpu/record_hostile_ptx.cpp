// Records what NVIDIA's driver answers when loading each PTX file given (hostile or broken PTX:
// tests/api/hostile), one line per file: its name, cuModuleLoadDataEx's result and then
// cuModuleGetFunction's (of the kernel `k`). An H200's answers, eager and lazy loading alike, are
// tests/gpu/answers/hostile_ptx.txt; tests/api/hostile_ptx_test.cpp checks cucpu against them.
// Usage: record_hostile_ptx FILE.ptx...
#include "record.h"

#include <cuda.h>

#include <string>

int main(int argc, char **argv) {
  CUcontext ctx;
  if (cuInit(0) || cuCtxCreate(&ctx, nullptr, 0, 0))
    return 3;
  for (int i = 1; i < argc; ++i) {
    const std::string ptx = readFile(argv[i]);
    std::string name = argv[i];
    name = name.substr(name.find_last_of('/') + 1);
    char log[4096] = {};
    CUjit_option options[] = {CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
    void *values[] = {log, reinterpret_cast<void *>(sizeof log)};
    CUmodule mod;
    CUresult r = cuModuleLoadDataEx(&mod, ptx.c_str(), 2, options, values);
    std::printf("%-24s load %d", name.c_str(), int(r));
    std::fflush(stdout);
    if (r == CUDA_SUCCESS) { // with lazy loading a kernel's errors come when it is first used
      CUfunction k;
      CUresult g = cuModuleGetFunction(&k, mod, "k");
      std::printf(", get function %d", int(g));
      cuModuleUnload(mod);
    }
    std::printf("\n");
    std::fflush(stdout);
  }
  return 0;
}

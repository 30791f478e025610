// Records what NVIDIA's driver answers when a PTX module's header or static shared memory is
// beyond what it supports: `.version` newer or older than the target allows, unknown `.target`s,
// static `.shared` data up to and beyond the 48 KiB a kernel may declare statically. Eager
// loading, so the answer comes from cuModuleLoadData; a module that loads is launched once and
// its kernel's store checked. Output: tests/gpu/answers/ptx_limits.txt (test
// api_ptx_limits_answers).
#include <cuda.h>

#include <cstdio>
#include <cstdlib>
#include <string>

namespace {

// One kernel storing 42 at the end of a static shared array of `bytes` (so the whole array is
// used) and reading it back into out[0].
std::string kernel(const std::string &name, unsigned bytes) {
  const std::string last = std::to_string(bytes - 4);
  return ".visible .entry " + name +
         "(.param .u64 out) {\n"
         "  .reg .b32 %r<3>;\n  .reg .b64 %rd<3>;\n"
         "  .shared .align 4 .b8 buf[" +
         std::to_string(bytes) +
         "];\n"
         "  ld.param.u64 %rd1, [out];\n  cvta.to.global.u64 %rd2, %rd1;\n"
         "  mov.u32 %r1, 42;\n  st.shared.u32 [buf+" +
         last +
         "], %r1;\n  bar.sync 0;\n"
         "  ld.shared.u32 %r2, [buf+" +
         last + "];\n  st.global.u32 [%rd2], %r2;\n  ret;\n}\n";
}

std::string module(const char *version, const char *target, unsigned bytes, int kernels = 1) {
  std::string m =
      std::string(".version ") + version + "\n.target " + target + "\n.address_size 64\n";
  for (int i = 0; i < kernels; ++i)
    m += kernel("k" + std::to_string(i), bytes);
  return m;
}

void run(const char *what, const std::string &ptx) {
  CUmodule mod = nullptr;
  CUresult load = cuModuleLoadData(&mod, ptx.c_str());
  std::printf("%-52s load %d", what, static_cast<int>(load));
  if (load == CUDA_SUCCESS) {
    CUfunction f = nullptr;
    CUdeviceptr out = 0;
    unsigned value = 0;
    CUresult get = cuModuleGetFunction(&f, mod, "k0");
    cuMemAlloc(&out, 4);
    cuMemsetD32(out, 0, 1);
    void *args[] = {&out};
    CUresult launch =
        get == CUDA_SUCCESS ? cuLaunchKernel(f, 1, 1, 1, 1, 1, 1, 0, nullptr, args, nullptr) : get;
    CUresult sync = cuCtxSynchronize();
    cuMemcpyDtoH(&value, out, 4);
    std::printf(", get %d, launch %d, sync %d, out %u", static_cast<int>(get),
                static_cast<int>(launch), static_cast<int>(sync), value);
    cuMemFree(out);
    cuModuleUnload(mod);
  }
  std::printf("\n");
}

} // namespace

int main() {
  setenv("CUDA_MODULE_LOADING", "EAGER", 1);
  CUdevice dev;
  CUcontext ctx;
  if (cuInit(0) != CUDA_SUCCESS || cuDeviceGet(&dev, 0) != CUDA_SUCCESS ||
      cuCtxCreate(&ctx, nullptr, 0, dev) != CUDA_SUCCESS)
    return 1;
  std::printf("PTX headers\n");
  run("version 9.0, sm_80", module("9.0", "sm_80", 1024));
  run("version 7.0, sm_80", module("7.0", "sm_80", 1024));
  run("version 6.5, sm_80 (older than the target)", module("6.5", "sm_80", 1024));
  run("version 9.0, sm_75", module("9.0", "sm_75", 1024));
  run("version 9.9, sm_80", module("9.9", "sm_80", 1024));
  run("version 10.0, sm_80", module("10.0", "sm_80", 1024));
  run("version 99.0, sm_80", module("99.0", "sm_80", 1024));
  run("version 9.0, sm_30 (no longer supported)", module("9.0", "sm_30", 1024));
  run("version 9.0, sm_999", module("9.0", "sm_999", 1024));
  run("version 9.0, target banana", module("9.0", "banana", 1024));
  run("version 9.0, sm_80 with texmode_independent",
      module("9.0", "sm_80, texmode_independent", 1024));
  std::printf("static shared memory\n");
  run("48 KiB", module("9.0", "sm_80", 48 * 1024));
  run("48 KiB + 4", module("9.0", "sm_80", 48 * 1024 + 4));
  run("64 KiB", module("9.0", "sm_80", 64 * 1024));
  run("227 KiB", module("9.0", "sm_80", 227 * 1024));
  run("two kernels of 40 KiB each", module("9.0", "sm_80", 40 * 1024, 2));
  return 0;
}

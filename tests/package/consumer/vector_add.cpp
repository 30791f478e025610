// A driver-API vectorAdd as a user's project writes it: its kernel as PTX text, built against
// whichever cuda.h the build system gives (cucpu's or NVIDIA's). It checks every element on the
// host and, with EXPECT_DRIVER_DIR set, that the libcuda.so.1 it runs on lies in that folder.
#include <cuda.h>
#include <dlfcn.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

static const char *kPtx = R"(
.version 7.0
.target sm_50
.address_size 64
.visible .entry vadd(.param .u64 a, .param .u64 b, .param .u64 c, .param .u32 n) {
  .reg .pred %p;
  .reg .b32 %r<5>;
  .reg .f32 %f<4>;
  .reg .b64 %rd<11>;
  ld.param.u64 %rd1, [a];
  ld.param.u64 %rd2, [b];
  ld.param.u64 %rd3, [c];
  ld.param.u32 %r1, [n];
  mov.u32 %r2, %ctaid.x;
  mov.u32 %r3, %ntid.x;
  mov.u32 %r4, %tid.x;
  mad.lo.s32 %r2, %r2, %r3, %r4;
  setp.ge.u32 %p, %r2, %r1;
  @%p bra DONE;
  mul.wide.u32 %rd4, %r2, 4;
  add.s64 %rd5, %rd1, %rd4;
  add.s64 %rd6, %rd2, %rd4;
  add.s64 %rd7, %rd3, %rd4;
  ld.global.f32 %f1, [%rd5];
  ld.global.f32 %f2, [%rd6];
  add.f32 %f3, %f1, %f2;
  st.global.f32 [%rd7], %f3;
DONE:
  ret;
}
)";

#define CHECK(x)                                                                                   \
  do {                                                                                             \
    CUresult r_ = (x);                                                                             \
    if (r_ != CUDA_SUCCESS) {                                                                      \
      std::printf("FAIL: %s returned %d\n", #x, static_cast<int>(r_));                             \
      return 1;                                                                                    \
    }                                                                                              \
  } while (0)

int main() {
  Dl_info info{};
  if (dladdr(reinterpret_cast<void *>(&cuInit), &info) == 0 || !info.dli_fname) {
    std::printf("FAIL: cannot tell which libcuda is loaded\n");
    return 1;
  }
  if (const char *want = std::getenv("EXPECT_DRIVER_DIR")) {
    std::string path = info.dli_fname;
    if (path.rfind(want, 0) != 0) {
      std::printf("FAIL: running on %s, not on the libcuda.so.1 in %s\n", path.c_str(), want);
      return 1;
    }
  }
  CHECK(cuInit(0));
  CUdevice dev;
  CHECK(cuDeviceGet(&dev, 0));
  CUcontext ctx;
  CHECK(cuDevicePrimaryCtxRetain(&ctx, dev));
  CHECK(cuCtxSetCurrent(ctx));
  CUmodule mod;
  CHECK(cuModuleLoadData(&mod, kPtx));
  CUfunction f;
  CHECK(cuModuleGetFunction(&f, mod, "vadd"));
  const unsigned n = 100000;
  std::vector<float> a(n), b(n), c(n);
  for (unsigned i = 0; i < n; ++i) {
    a[i] = static_cast<float>(i) * 0.5f;
    b[i] = static_cast<float>(n - i);
  }
  CUdeviceptr da, db, dc;
  CHECK(cuMemAlloc(&da, n * sizeof(float)));
  CHECK(cuMemAlloc(&db, n * sizeof(float)));
  CHECK(cuMemAlloc(&dc, n * sizeof(float)));
  CHECK(cuMemcpyHtoD(da, a.data(), n * sizeof(float)));
  CHECK(cuMemcpyHtoD(db, b.data(), n * sizeof(float)));
  void *args[] = {&da, &db, &dc, const_cast<unsigned *>(&n)};
  CHECK(cuLaunchKernel(f, (n + 255) / 256, 1, 1, 256, 1, 1, 0, nullptr, args, nullptr));
  CHECK(cuMemcpyDtoH(c.data(), dc, n * sizeof(float)));
  for (unsigned i = 0; i < n; ++i)
    if (c[i] != a[i] + b[i]) {
      std::printf("FAIL: c[%u] = %g, expected %g\n", i, c[i], a[i] + b[i]);
      return 1;
    }
  CHECK(cuMemFree(da));
  CHECK(cuMemFree(db));
  CHECK(cuMemFree(dc));
  CHECK(cuDevicePrimaryCtxRelease(dev));
  std::printf("vectorAdd of %u elements on %s: PASS\n", n, info.dli_fname);
  return 0;
}

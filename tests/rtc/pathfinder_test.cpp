// A process that loads NVRTC the way cuda-pathfinder does (an already-loaded libnvrtc.so.13
// first, by RTLD_NOLOAD) after cucpu's libcuda.so.1 gets cucpu's front end, whose sm_80 output
// then runs. This program is not linked against NVRTC at all.
#include <cuda.h>
#include <gtest/gtest.h>

#include <dlfcn.h>
#include <link.h>

#include <string>

namespace {

TEST(Pathfinder, LibcudaLoadsTheFrontEndsThatNameLookupsFind) {
  ASSERT_EQ(cuInit(0), CUDA_SUCCESS);
  for (const char *soname : {"libnvrtc.so.13", "libnvJitLink.so.13"}) {
    void *h = dlopen(soname, RTLD_NOW | RTLD_NOLOAD);
    ASSERT_NE(h, nullptr) << soname << " is not loaded";
    link_map *map = nullptr;
    ASSERT_EQ(dlinfo(h, RTLD_DI_LINKMAP, &map), 0);
    std::string path = map->l_name;
    Dl_info self{};
    ASSERT_NE(dladdr(reinterpret_cast<const void *>(&cuInit), &self), 0);
    std::string dir(self.dli_fname);
    dir.erase(dir.find_last_of('/') + 1);
    EXPECT_EQ(path, dir + soname) << "the loaded " << soname << " is not cucpu's";
  }
}

TEST(Pathfinder, CubinFromTheLoadedNvrtcRuns) {
  ASSERT_EQ(cuInit(0), CUDA_SUCCESS);
  void *h = dlopen("libnvrtc.so.13", RTLD_NOW | RTLD_NOLOAD);
  ASSERT_NE(h, nullptr);
  using Create =
      int (*)(void **, const char *, const char *, int, const char *const *, const char *const *);
  using Compile = int (*)(void *, int, const char *const *);
  using Size = int (*)(void *, size_t *);
  using Get = int (*)(void *, char *);
  auto create = reinterpret_cast<Create>(dlsym(h, "nvrtcCreateProgram"));
  auto compile = reinterpret_cast<Compile>(dlsym(h, "nvrtcCompileProgram"));
  auto size = reinterpret_cast<Size>(dlsym(h, "nvrtcGetCUBINSize"));
  auto get = reinterpret_cast<Get>(dlsym(h, "nvrtcGetCUBIN"));
  ASSERT_TRUE(create && compile && size && get);
  void *prog = nullptr;
  ASSERT_EQ(
      create(&prog,
             R"(extern "C" __global__ void fill(int *a) { a[threadIdx.x] = 3 * threadIdx.x; })",
             "fill.cu", 0, nullptr, nullptr),
      0);
  const char *opts[] = {"-arch=sm_80"};
  ASSERT_EQ(compile(prog, 1, opts), 0);
  size_t n = 0;
  ASSERT_EQ(size(prog, &n), 0);
  std::string cubin(n, '\0');
  ASSERT_EQ(get(prog, cubin.data()), 0);

  CUdevice dev;
  CUcontext ctx;
  ASSERT_EQ(cuDeviceGet(&dev, 0), CUDA_SUCCESS);
  ASSERT_EQ(cuDevicePrimaryCtxRetain(&ctx, dev), CUDA_SUCCESS);
  ASSERT_EQ(cuCtxSetCurrent(ctx), CUDA_SUCCESS);
  CUmodule mod;
  ASSERT_EQ(cuModuleLoadData(&mod, cubin.data()), CUDA_SUCCESS);
  CUfunction f;
  ASSERT_EQ(cuModuleGetFunction(&f, mod, "fill"), CUDA_SUCCESS);
  CUdeviceptr d;
  ASSERT_EQ(cuMemAlloc(&d, 64 * sizeof(int)), CUDA_SUCCESS);
  void *args[] = {&d};
  ASSERT_EQ(cuLaunchKernel(f, 1, 1, 1, 64, 1, 1, 0, nullptr, args, nullptr), CUDA_SUCCESS);
  int out[64];
  ASSERT_EQ(cuMemcpyDtoH(out, d, sizeof out), CUDA_SUCCESS);
  for (int i = 0; i < 64; ++i)
    ASSERT_EQ(out[i], 3 * i);
  cuMemFree(d);
  cuModuleUnload(mod);
  cuDevicePrimaryCtxRelease(dev);
}

} // namespace

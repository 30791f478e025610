// Run-time compiled code runs on cucpu as NVIDIA's tools hand it out: NVRTC cubins for sm_80 and
// the reported architecture, nvJitLink links of PTX, LTO-IR, fat binaries and NVRTC's output,
// launched through the driver and checked against host arithmetic; and cucpu's front ends answer
// misuse as NVIDIA's libraries do (both are called here).
#include <cuda.h>
#include <gtest/gtest.h>
#include <nvJitLink.h>
#include <nvrtc.h>

#include <dlfcn.h>

#include <cstring>
#include <string>
#include <vector>

namespace {

constexpr const char *kScale = R"(
extern "C" __global__ void scale(float *a, float s, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) a[i] = a[i] * s + i;
})";
// Two relocatable units: a kernel and the device function it calls.
constexpr const char *kApply = R"(
extern __device__ float twice(float);
extern "C" __global__ void apply(float *a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) a[i] = twice(a[i]) + 1.0f;
})";
constexpr const char *kTwice = "__device__ float twice(float x) { return 2.0f * x + 0.5f; }";

enum class Output { Ptx, Cubin, Ltoir };

std::string compile(const char *source, std::vector<const char *> options, Output out) {
  nvrtcProgram prog;
  EXPECT_EQ(nvrtcCreateProgram(&prog, source, "unit.cu", 0, nullptr, nullptr), NVRTC_SUCCESS);
  nvrtcResult r = nvrtcCompileProgram(prog, int(options.size()), options.data());
  size_t logBytes = 0;
  nvrtcGetProgramLogSize(prog, &logBytes);
  std::string log(logBytes, '\0');
  nvrtcGetProgramLog(prog, log.data());
  EXPECT_EQ(r, NVRTC_SUCCESS) << log;
  size_t n = 0;
  std::string bytes;
  if (out == Output::Cubin) {
    EXPECT_EQ(nvrtcGetCUBINSize(prog, &n), NVRTC_SUCCESS);
    bytes.resize(n);
    EXPECT_EQ(nvrtcGetCUBIN(prog, bytes.data()), NVRTC_SUCCESS);
  } else if (out == Output::Ltoir) {
    EXPECT_EQ(nvrtcGetLTOIRSize(prog, &n), NVRTC_SUCCESS);
    bytes.resize(n);
    EXPECT_EQ(nvrtcGetLTOIR(prog, bytes.data()), NVRTC_SUCCESS);
  } else {
    EXPECT_EQ(nvrtcGetPTXSize(prog, &n), NVRTC_SUCCESS);
    bytes.resize(n);
    EXPECT_EQ(nvrtcGetPTX(prog, bytes.data()), NVRTC_SUCCESS);
  }
  nvrtcDestroyProgram(&prog);
  return bytes;
}

class Rtc : public ::testing::Test {
protected:
  void SetUp() override {
    ASSERT_EQ(cuInit(0), CUDA_SUCCESS);
    CUdevice dev;
    ASSERT_EQ(cuDeviceGet(&dev, 0), CUDA_SUCCESS);
    ASSERT_EQ(cuDeviceGetAttribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, dev),
              CUDA_SUCCESS);
    ASSERT_EQ(cuDeviceGetAttribute(&minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, dev),
              CUDA_SUCCESS);
    ASSERT_EQ(cuDevicePrimaryCtxRetain(&ctx, dev), CUDA_SUCCESS);
    ASSERT_EQ(cuCtxSetCurrent(ctx), CUDA_SUCCESS);
  }
  void TearDown() override {
    CUdevice dev;
    cuDeviceGet(&dev, 0);
    cuDevicePrimaryCtxRelease(dev);
  }

  // Launches `kernel` of `image` over n = 1000 floats a[i] = i / 4 with `extra` arguments
  // after the pointer, and returns the array.
  std::vector<float> run(const void *image, const char *kernel, std::vector<void *> extra) {
    constexpr int n = 1000;
    std::vector<float> host(n);
    for (int i = 0; i < n; ++i)
      host[i] = float(i) / 4;
    CUmodule mod = nullptr;
    char errors[4096] = {};
    CUjit_option opts[] = {CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
    void *values[] = {errors, reinterpret_cast<void *>(sizeof errors)};
    EXPECT_EQ(cuModuleLoadDataEx(&mod, image, 2, opts, values), CUDA_SUCCESS) << errors;
    if (!mod)
      return {};
    CUfunction f;
    EXPECT_EQ(cuModuleGetFunction(&f, mod, kernel), CUDA_SUCCESS);
    CUdeviceptr d;
    EXPECT_EQ(cuMemAlloc(&d, n * sizeof(float)), CUDA_SUCCESS);
    EXPECT_EQ(cuMemcpyHtoD(d, host.data(), n * sizeof(float)), CUDA_SUCCESS);
    int count = n;
    std::vector<void *> args{&d};
    args.insert(args.end(), extra.begin(), extra.end());
    args.push_back(&count);
    EXPECT_EQ(cuLaunchKernel(f, (n + 127) / 128, 1, 1, 128, 1, 1, 0, nullptr, args.data(), nullptr),
              CUDA_SUCCESS);
    EXPECT_EQ(cuMemcpyDtoH(host.data(), d, n * sizeof(float)), CUDA_SUCCESS);
    cuMemFree(d);
    cuModuleUnload(mod);
    return host;
  }

  void expectScaled(const std::vector<float> &a, float s) {
    ASSERT_EQ(a.size(), 1000u);
    for (int i = 0; i < 1000; ++i)
      ASSERT_EQ(a[i], float(i) / 4 * s + float(i)) << "element " << i;
  }
  void expectApplied(const std::vector<float> &a) {
    ASSERT_EQ(a.size(), 1000u);
    for (int i = 0; i < 1000; ++i)
      ASSERT_EQ(a[i], (2.0f * (float(i) / 4) + 0.5f) + 1.0f) << "element " << i;
  }
  std::vector<float> runScale(const void *image, float s) { return run(image, "scale", {&s}); }

  int major = 0, minor = 0;
  CUcontext ctx = nullptr;
};

TEST_F(Rtc, NvrtcCubinForSm80Runs) {
  std::string cubin = compile(kScale, {"-arch=sm_80"}, Output::Cubin);
  ASSERT_FALSE(cubin.empty());
  expectScaled(runScale(cubin.data(), 3.0f), 3.0f);
}

TEST_F(Rtc, NvrtcCubinForTheReportedArchitectureRuns) {
  std::string arch = "--gpu-architecture=sm_" + std::to_string(major * 10 + minor);
  std::string cubin = compile(kScale, {arch.c_str()}, Output::Cubin);
  expectScaled(runScale(cubin.data(), -1.5f), -1.5f);
}

TEST_F(Rtc, NvrtcVirtualArchitectureHasNoCubinAndItsPtxRuns) {
  nvrtcProgram prog;
  ASSERT_EQ(nvrtcCreateProgram(&prog, kScale, "scale.cu", 0, nullptr, nullptr), NVRTC_SUCCESS);
  const char *opts[] = {"-arch=compute_80"};
  ASSERT_EQ(nvrtcCompileProgram(prog, 1, opts), NVRTC_SUCCESS);
  size_t n = 1;
  EXPECT_EQ(nvrtcGetCUBINSize(prog, &n), NVRTC_SUCCESS); // as NVIDIA's: no cubin, size 0
  EXPECT_EQ(n, 0u);
  nvrtcDestroyProgram(&prog);
  std::string ptx = compile(kScale, {"-arch=compute_80"}, Output::Ptx);
  expectScaled(runScale(ptx.data(), 2.0f), 2.0f);
}

TEST_F(Rtc, NvrtcRelocatableCubinsLinkThroughTheDriver) {
  std::string apply = compile(kApply, {"-arch=sm_80", "-rdc=true"}, Output::Cubin);
  std::string twice = compile(kTwice, {"-arch=sm_80", "-rdc=true"}, Output::Cubin);
  CUlinkState link;
  ASSERT_EQ(cuLinkCreate(0, nullptr, nullptr, &link), CUDA_SUCCESS);
  ASSERT_EQ(cuLinkAddData(link, CU_JIT_INPUT_CUBIN, apply.data(), apply.size(), "apply", 0, nullptr,
                          nullptr),
            CUDA_SUCCESS);
  ASSERT_EQ(cuLinkAddData(link, CU_JIT_INPUT_CUBIN, twice.data(), twice.size(), "twice", 0, nullptr,
                          nullptr),
            CUDA_SUCCESS);
  void *image = nullptr;
  size_t size = 0;
  ASSERT_EQ(cuLinkComplete(link, &image, &size), CUDA_SUCCESS);
  expectApplied(run(image, "apply", {}));
  cuLinkDestroy(link);
}

// Links `units` (type, bytes) with nvJitLink and `options`; returns the linked "cubin".
std::string jitLink(std::vector<const char *> options,
                    std::vector<std::pair<nvJitLinkInputType, std::string>> units) {
  nvJitLinkHandle h;
  EXPECT_EQ(nvJitLinkCreate(&h, uint32_t(options.size()), options.data()), NVJITLINK_SUCCESS);
  for (auto &[type, bytes] : units)
    EXPECT_EQ(nvJitLinkAddData(h, type, bytes.data(), bytes.size(), "unit"), NVJITLINK_SUCCESS);
  nvJitLinkResult r = nvJitLinkComplete(h);
  size_t logBytes = 0;
  nvJitLinkGetErrorLogSize(h, &logBytes);
  std::string log(logBytes, '\0');
  nvJitLinkGetErrorLog(h, log.data());
  EXPECT_EQ(r, NVJITLINK_SUCCESS) << log;
  size_t n = 0;
  EXPECT_EQ(nvJitLinkGetLinkedCubinSize(h, &n), NVJITLINK_SUCCESS);
  std::string image(n, '\0');
  EXPECT_EQ(nvJitLinkGetLinkedCubin(h, image.data()), NVJITLINK_SUCCESS);
  nvJitLinkDestroy(&h);
  return image;
}

TEST_F(Rtc, NvJitLinkOfPtxRuns) {
  std::string apply = compile(kApply, {"-arch=sm_80", "-rdc=true"}, Output::Ptx);
  std::string twice = compile(kTwice, {"-arch=sm_80", "-rdc=true"}, Output::Ptx);
  std::string image =
      jitLink({"-arch=sm_80"}, {{NVJITLINK_INPUT_PTX, apply}, {NVJITLINK_INPUT_PTX, twice}});
  expectApplied(run(image.data(), "apply", {}));
}

TEST_F(Rtc, NvJitLinkOfLtoirRuns) {
  std::string apply = compile(kApply, {"-arch=sm_80", "-dlto", "-rdc=true"}, Output::Ltoir);
  std::string twice = compile(kTwice, {"-arch=sm_80", "-dlto", "-rdc=true"}, Output::Ltoir);
  std::string image = jitLink({"-arch=sm_80", "-lto"},
                              {{NVJITLINK_INPUT_LTOIR, apply}, {NVJITLINK_INPUT_LTOIR, twice}});
  expectApplied(run(image.data(), "apply", {}));
}

TEST_F(Rtc, NvJitLinkOfLtoirCallingPtxRuns) {
  std::string apply = compile(kApply, {"-arch=sm_80", "-dlto", "-rdc=true"}, Output::Ltoir);
  std::string twice = compile(kTwice, {"-arch=sm_80", "-rdc=true"}, Output::Ptx);
  std::string image = jitLink({"-arch=sm_80", "-lto"},
                              {{NVJITLINK_INPUT_LTOIR, apply}, {NVJITLINK_INPUT_PTX, twice}});
  expectApplied(run(image.data(), "apply", {}));
}

// The reverse: a kernel in PTX calls a function that only an LTO-IR input defines (numba-cuda's
// user PTX calling NRT_Allocate from its kernel's LTO-IR). The LTO-IR's own link to PTX must keep
// the function although nothing in the LTO-IR uses it.
TEST_F(Rtc, NvJitLinkOfPtxCallingLtoirRuns) {
  std::string apply = compile(kApply, {"-arch=sm_80", "-rdc=true"}, Output::Ptx);
  std::string twice = compile(kTwice, {"-arch=sm_80", "-dlto", "-rdc=true"}, Output::Ltoir);
  std::string image = jitLink({"-arch=sm_80", "-lto"},
                              {{NVJITLINK_INPUT_PTX, apply}, {NVJITLINK_INPUT_LTOIR, twice}});
  expectApplied(run(image.data(), "apply", {}));
}

TEST_F(Rtc, NvJitLinkOfNvrtcCubinsAndAnyInputsRuns) {
  std::string apply = compile(kApply, {"-arch=sm_80", "-rdc=true"}, Output::Cubin);
  std::string twice = compile(kTwice, {"-arch=sm_80", "-rdc=true"}, Output::Ptx);
  std::string image =
      jitLink({"-arch=sm_80"}, {{NVJITLINK_INPUT_CUBIN, apply}, {NVJITLINK_INPUT_ANY, twice}});
  expectApplied(run(image.data(), "apply", {}));
}

// -maxrregcount given to NVRTC or nvJitLink bounds CU_FUNC_ATTRIBUTE_NUM_REGS, as ptxas's
// allocation is bounded on a GPU (numba's max_registers).
constexpr const char *kHeavy = R"(
extern "C" __global__ void heavy(double *a) {
  double x[16];
  for (int i = 0; i < 16; ++i) x[i] = a[i];
  double s = 0;
  for (int i = 0; i < 16; ++i) s += x[i] * x[15 - i];
  a[16] = s;
})";

int numRegs(const void *image, const char *kernel) {
  CUmodule mod;
  EXPECT_EQ(cuModuleLoadData(&mod, image), CUDA_SUCCESS);
  CUfunction f;
  EXPECT_EQ(cuModuleGetFunction(&f, mod, kernel), CUDA_SUCCESS);
  int n = -1;
  EXPECT_EQ(cuFuncGetAttribute(&n, CU_FUNC_ATTRIBUTE_NUM_REGS, f), CUDA_SUCCESS);
  cuModuleUnload(mod);
  return n;
}

TEST_F(Rtc, MaxRegisterCountBoundsTheReportedRegisters) {
  std::string free = compile(kHeavy, {"-arch=sm_80"}, Output::Cubin);
  ASSERT_GT(numRegs(free.data(), "heavy"), 20);
  std::string bounded = compile(kHeavy, {"-arch=sm_80", "--maxrregcount=20"}, Output::Cubin);
  EXPECT_EQ(numRegs(bounded.data(), "heavy"), 20);
  std::string ptx = compile(kHeavy, {"-arch=sm_80"}, Output::Ptx);
  std::string linked = jitLink({"-arch=sm_80", "-maxrregcount=24"}, {{NVJITLINK_INPUT_PTX, ptx}});
  EXPECT_EQ(numRegs(linked.data(), "heavy"), 24);
}

// NVIDIA's library, loaded beside cucpu's front end, for the answers to compare with.
void *nvidia(const char *soname) {
  for (const char *dir : {"/usr/local/cuda/lib64/", "/usr/local/cuda/targets/x86_64-linux/lib/"})
    if (void *h = dlopen((std::string(dir) + soname).c_str(), RTLD_NOW | RTLD_LOCAL))
      return h;
  return nullptr;
}

TEST_F(Rtc, NvJitLinkMisuseAnswersAsNvidias) {
  void *lib = nvidia("libnvJitLink.so.13");
  if (!lib)
    GTEST_SKIP() << "NVIDIA's libnvJitLink.so.13 is not under /usr/local/cuda";
  using Create = nvJitLinkResult (*)(nvJitLinkHandle *, uint32_t, const char *const *);
  using Destroy = nvJitLinkResult (*)(nvJitLinkHandle *);
  using Size = nvJitLinkResult (*)(nvJitLinkHandle, size_t *);
  auto create = reinterpret_cast<Create>(dlsym(lib, "__nvJitLinkCreate_13_0"));
  auto destroy = reinterpret_cast<Destroy>(dlsym(lib, "__nvJitLinkDestroy_13_0"));
  auto cubinSize = reinterpret_cast<Size>(dlsym(lib, "__nvJitLinkGetLinkedCubinSize_13_0"));
  std::vector<std::vector<const char *>> cases = {
      {}, {"-arch=sm_80", "-ptx"}, {"-lto"}, {"-arch=sm_80", "-bogus"}, {"-arch=sm_80"}};
  for (auto &opts : cases) {
    nvJitLinkHandle ours = nullptr, theirs = nullptr;
    nvJitLinkResult a = nvJitLinkCreate(&ours, uint32_t(opts.size()), opts.data());
    nvJitLinkResult b = create(&theirs, uint32_t(opts.size()), opts.data());
    EXPECT_EQ(a, b) << opts.size() << " options";
    size_t x = 7, y = 7; // before complete
    if (ours && theirs) {
      EXPECT_EQ(nvJitLinkGetLinkedCubinSize(ours, &x), cubinSize(theirs, &y));
      EXPECT_EQ(x, y);
    }
    EXPECT_EQ(nvJitLinkDestroy(&ours), destroy(&theirs));
  }
  EXPECT_EQ(nvJitLinkCreate(nullptr, 0, nullptr), create(nullptr, 0, nullptr));
}

TEST_F(Rtc, NvrtcMisuseAnswersAsNvidias) {
  void *lib = nvidia("libnvrtc.so.13");
  if (!lib)
    GTEST_SKIP() << "NVIDIA's libnvrtc.so.13 is not under /usr/local/cuda";
  using Size = nvrtcResult (*)(nvrtcProgram, size_t *);
  using Compile = nvrtcResult (*)(nvrtcProgram, int, const char *const *);
  auto cubinSize = reinterpret_cast<Size>(dlsym(lib, "nvrtcGetCUBINSize"));
  auto compileProgram = reinterpret_cast<Compile>(dlsym(lib, "nvrtcCompileProgram"));
  size_t n = 0;
  EXPECT_EQ(nvrtcGetCUBINSize(nullptr, &n), cubinSize(nullptr, &n));
  EXPECT_EQ(nvrtcCompileProgram(nullptr, 0, nullptr), compileProgram(nullptr, 0, nullptr));
  nvrtcProgram prog;
  ASSERT_EQ(nvrtcCreateProgram(&prog, "__global__ void k() { undeclared(); }", "bad.cu", 0, nullptr,
                               nullptr),
            NVRTC_SUCCESS);
  const char *opts[] = {"-arch=sm_80"};
  EXPECT_EQ(nvrtcCompileProgram(prog, 1, opts), NVRTC_ERROR_COMPILATION);
  size_t logBytes = 0;
  ASSERT_EQ(nvrtcGetProgramLogSize(prog, &logBytes), NVRTC_SUCCESS);
  std::string log(logBytes, '\0');
  ASSERT_EQ(nvrtcGetProgramLog(prog, log.data()), NVRTC_SUCCESS);
  EXPECT_NE(log.find("undeclared"), std::string::npos) << log;
  EXPECT_STREQ(nvrtcGetErrorString(NVRTC_ERROR_COMPILATION), "NVRTC_ERROR_COMPILATION");
  int maj = 0, min = 0;
  EXPECT_EQ(nvrtcVersion(&maj, &min), NVRTC_SUCCESS); // a forwarded function
  EXPECT_EQ(maj, 13);
  nvrtcDestroyProgram(&prog);
}

} // namespace

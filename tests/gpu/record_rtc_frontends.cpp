// Runs NVRTC and nvJitLink output on NVIDIA's driver: built against the toolkit and run once with
// NVIDIA's libraries and once with cucpu's front ends first on LD_LIBRARY_PATH, it shows that the
// fat binaries the front ends hand out (NVIDIA's cubin plus the PTX) load and give the same
// results on a GPU. Prints one line per case.
#include <cuda.h>
#include <nvJitLink.h>
#include <nvrtc.h>

#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

namespace {

const char *kSource = R"(
extern __device__ int twice(int);
extern "C" __global__ void apply(int *a) { a[threadIdx.x] = twice(a[threadIdx.x]) + 1; })";
const char *kTwice = "__device__ int twice(int x) { return 2 * x + 3; }";

std::string compile(const char *src, const char *arch, bool ptx) {
  nvrtcProgram p;
  nvrtcCreateProgram(&p, src, "u.cu", 0, nullptr, nullptr);
  const char *opts[] = {arch, "-rdc=true"};
  if (nvrtcCompileProgram(p, 2, opts) != NVRTC_SUCCESS)
    return {};
  size_t n = 0;
  std::string out;
  if (ptx) {
    nvrtcGetPTXSize(p, &n);
    out.resize(n);
    nvrtcGetPTX(p, out.data());
  } else {
    nvrtcGetCUBINSize(p, &n);
    out.resize(n);
    nvrtcGetCUBIN(p, out.data());
  }
  nvrtcDestroyProgram(&p);
  return out;
}

void run(const char *what, const void *image) {
  CUmodule m;
  CUresult r = cuModuleLoadData(&m, image);
  if (r != CUDA_SUCCESS) {
    std::printf("%s: load %d\n", what, int(r));
    return;
  }
  CUfunction f;
  cuModuleGetFunction(&f, m, "apply");
  int host[32];
  for (int i = 0; i < 32; ++i)
    host[i] = i;
  CUdeviceptr d;
  cuMemAlloc(&d, sizeof host);
  cuMemcpyHtoD(d, host, sizeof host);
  void *args[] = {&d};
  r = cuLaunchKernel(f, 1, 1, 1, 32, 1, 1, 0, nullptr, args, nullptr);
  cuMemcpyDtoH(host, d, sizeof host);
  bool ok = r == CUDA_SUCCESS;
  for (int i = 0; i < 32; ++i)
    ok = ok && host[i] == 2 * i + 4;
  std::printf("%s: launch %d, %s\n", what, int(r), ok ? "correct" : "WRONG");
  cuMemFree(d);
  cuModuleUnload(m);
}

} // namespace

int main() {
  CUdevice dev;
  CUcontext ctx;
  cuInit(0);
  cuDeviceGet(&dev, 0);
  cuDevicePrimaryCtxRetain(&ctx, dev);
  cuCtxSetCurrent(ctx);
  for (const char *arch : {"-arch=sm_90", "-arch=sm_80"}) {
    std::string a = compile(kSource, arch, false), b = compile(kTwice, arch, false);
    std::printf("%s cubins: %zu and %zu bytes, magic %08x\n", arch, a.size(), b.size(),
                a.size() >= 4 ? *reinterpret_cast<const unsigned *>(a.data()) : 0u);
    CUlinkState link;
    cuLinkCreate(0, nullptr, nullptr, &link);
    CUresult ra = cuLinkAddData(link, CU_JIT_INPUT_CUBIN, a.data(), a.size(), "a", 0, nullptr, nullptr);
    CUresult rb = cuLinkAddData(link, CU_JIT_INPUT_CUBIN, b.data(), b.size(), "b", 0, nullptr, nullptr);
    void *image = nullptr;
    size_t size = 0;
    CUresult rc = cuLinkComplete(link, &image, &size);
    std::printf("%s cuLink of NVRTC cubins: add %d %d complete %d\n", arch, int(ra), int(rb), int(rc));
    if (rc == CUDA_SUCCESS)
      run((std::string(arch) + " cuLink image").c_str(), image);
    cuLinkDestroy(link);

    std::string pa = compile(kSource, arch, true), pb = compile(kTwice, arch, true);
    const char *lopts[] = {arch};
    nvJitLinkHandle h;
    nvJitLinkCreate(&h, 1, lopts);
    nvJitLinkAddData(h, NVJITLINK_INPUT_PTX, pa.data(), pa.size(), "a");
    nvJitLinkAddData(h, NVJITLINK_INPUT_PTX, pb.data(), pb.size(), "b");
    nvJitLinkResult lr = nvJitLinkComplete(h);
    size_t n = 0;
    nvJitLinkGetLinkedCubinSize(h, &n);
    std::string linked(n, '\0');
    nvJitLinkGetLinkedCubin(h, linked.data());
    std::printf("%s nvJitLink: complete %d, %zu bytes, magic %08x\n", arch, int(lr), n,
                n >= 4 ? *reinterpret_cast<const unsigned *>(linked.data()) : 0u);
    if (lr == NVJITLINK_SUCCESS)
      run((std::string(arch) + " nvJitLink image").c_str(), linked.data());
    nvJitLinkDestroy(&h);
  }
  return 0;
}

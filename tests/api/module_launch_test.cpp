// Modules, functions and launches: JIT logs, lookups, stale handles, launch validation.
#include <cuda.h>
#include <gtest/gtest.h>

#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <sys/mman.h>
#include <unistd.h>
#include <utility>
#include <vector>

namespace {

std::string readFile(const std::string &rel) {
  std::ifstream in(std::string(CUCPU_SOURCE_DIR) + "/" + rel);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

class Module : public ::testing::Test {
protected:
  void SetUp() override {
    ASSERT_EQ(cuInit(0), CUDA_SUCCESS);
    ASSERT_EQ(cuCtxCreate(&ctx, nullptr, 0, 0), CUDA_SUCCESS);
    ptx = readFile("tests/unit/jit/kernels.ptx");
    ASSERT_FALSE(ptx.empty());
  }
  void TearDown() override { EXPECT_EQ(cuCtxDestroy(ctx), CUDA_SUCCESS); }
  CUcontext ctx = nullptr;
  std::string ptx;
};

TEST_F(Module, LoadGetFunctionUnload) {
  CUmodule m = nullptr;
  ASSERT_EQ(cuModuleLoadData(&m, ptx.c_str()), CUDA_SUCCESS);
  CUfunction f = nullptr;
  ASSERT_EQ(cuModuleGetFunction(&f, m, "VecAdd_kernel"), CUDA_SUCCESS);
  EXPECT_EQ(cuModuleGetFunction(&f, m, "NoSuchKernel"), CUDA_ERROR_NOT_FOUND);
  EXPECT_EQ(cuModuleGetFunction(nullptr, m, "VecAdd_kernel"), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cuModuleGetFunction(&f, m, nullptr), CUDA_ERROR_INVALID_VALUE);
  ASSERT_EQ(cuModuleGetFunction(&f, m, "matrixMul"), CUDA_SUCCESS);
  int v = 0;
  ASSERT_EQ(cuFuncGetAttribute(&v, CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, f), CUDA_SUCCESS);
  EXPECT_EQ(v, 2048);
  ASSERT_EQ(cuFuncGetAttribute(&v, CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, f), CUDA_SUCCESS);
  EXPECT_EQ(v, 1024);
  ASSERT_EQ(cuFuncGetAttribute(&v, CU_FUNC_ATTRIBUTE_PTX_VERSION, f), CUDA_SUCCESS);
  EXPECT_EQ(v, 75); // .version 9.0, .target sm_75: the target, as an H100 reports it
  ASSERT_EQ(cuModuleUnload(m), CUDA_SUCCESS);
  // Stale handles are recognised after unload.
  EXPECT_EQ(cuModuleUnload(m), CUDA_ERROR_INVALID_HANDLE);
  EXPECT_EQ(cuModuleGetFunction(&f, m, "VecAdd_kernel"), CUDA_ERROR_INVALID_HANDLE);
  EXPECT_EQ(cuFuncGetAttribute(&v, CU_FUNC_ATTRIBUTE_NUM_REGS, f), CUDA_ERROR_INVALID_HANDLE);
  EXPECT_EQ(cuLaunchKernel(f, 1, 1, 1, 1, 1, 1, 0, nullptr, nullptr, nullptr),
            CUDA_ERROR_INVALID_HANDLE);
}

// CU_FUNC_ATTRIBUTE_PTX_VERSION is the .target's number, not the ISA's .version (values from an
// H100 with driver 580: 75, 52, 90). CUB multiplies it by 10 and refuses to dispatch
// (cudaErrorInvalidDeviceFunction) when the result is not an architecture it was built for.
TEST_F(Module, PtxVersionIsTheTarget) {
  const std::pair<const char *, int> cases[] = {
      {".version 9.0\n.target sm_75\n.address_size 64\n.visible .entry e(){ret;}\n", 75},
      {".version 7.0\n.target sm_52\n.address_size 64\n.visible .entry e(){ret;}\n", 52},
      {".version 8.0\n.target sm_90a\n.address_size 64\n.visible .entry e(){ret;}\n", 90}};
  for (const auto &[text, want] : cases) {
    CUmodule m = nullptr;
    ASSERT_EQ(cuModuleLoadData(&m, text), CUDA_SUCCESS) << text;
    CUfunction f = nullptr;
    ASSERT_EQ(cuModuleGetFunction(&f, m, "e"), CUDA_SUCCESS);
    int v = 0;
    ASSERT_EQ(cuFuncGetAttribute(&v, CU_FUNC_ATTRIBUTE_PTX_VERSION, f), CUDA_SUCCESS);
    EXPECT_EQ(v, want) << text;
    EXPECT_EQ(cuModuleUnload(m), CUDA_SUCCESS);
  }
}

TEST_F(Module, LoadFromFileAndMissingFile) {
  CUmodule m;
  std::string path = std::string(CUCPU_SOURCE_DIR) + "/tests/unit/jit/kernels.ptx";
  ASSERT_EQ(cuModuleLoad(&m, path.c_str()), CUDA_SUCCESS);
  ASSERT_EQ(cuModuleUnload(m), CUDA_SUCCESS);
  EXPECT_EQ(cuModuleLoad(&m, "/nonexistent/k.ptx"), CUDA_ERROR_FILE_NOT_FOUND);
  EXPECT_EQ(cuModuleLoad(nullptr, path.c_str()), CUDA_ERROR_INVALID_VALUE);
}

TEST_F(Module, BadPtxFillsTheErrorLogWithLineAndColumn) {
  std::string bad = ".version 9.0\n.target sm_75\n.address_size 64\n"
                    ".visible .entry k(.param .u64 p)\n{\n  .reg .b32 %r<2>;\n"
                    "  mov.u32 %r1 %r0;\n  ret;\n}\n";
  char errorLog[1024] = {}, infoLog[1024] = {};
  CUjit_option opts[] = {CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES,
                         CU_JIT_INFO_LOG_BUFFER, CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES,
                         CU_JIT_WALL_TIME};
  void *vals[] = {errorLog, reinterpret_cast<void *>(sizeof errorLog), infoLog,
                  reinterpret_cast<void *>(sizeof infoLog), nullptr};
  CUmodule m;
  EXPECT_EQ(cuModuleLoadDataEx(&m, bad.c_str(), 5, opts, vals), CUDA_ERROR_INVALID_PTX);
  std::string log(errorLog);
  EXPECT_NE(log.find("7:"), std::string::npos) << log;
  size_t used = reinterpret_cast<size_t>(vals[1]);
  EXPECT_EQ(used, log.size() + 1);
  // A log buffer too small is truncated and still NUL-terminated.
  char tiny[8];
  std::memset(tiny, 'z', sizeof tiny);
  void *vals2[] = {tiny, reinterpret_cast<void *>(sizeof tiny)};
  EXPECT_EQ(cuModuleLoadDataEx(&m, bad.c_str(), 2, opts, vals2), CUDA_ERROR_INVALID_PTX);
  EXPECT_EQ(tiny[7], '\0');
  // Garbage never crashes the loader; text without .version is not PTX at all (an H200 answers
  // INVALID_IMAGE, tests/gpu/answers/misuse.txt).
  EXPECT_EQ(cuModuleLoadData(&m, "\x01\x02garbage{{{"), CUDA_ERROR_INVALID_IMAGE);
  EXPECT_EQ(cuModuleLoadData(&m, ""), CUDA_ERROR_INVALID_IMAGE);
}

TEST_F(Module, WallTimeAndVerboseInfoLog) {
  char infoLog[1024] = {};
  CUjit_option opts[] = {CU_JIT_INFO_LOG_BUFFER, CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES,
                         CU_JIT_LOG_VERBOSE, CU_JIT_WALL_TIME};
  void *vals[] = {infoLog, reinterpret_cast<void *>(sizeof infoLog), reinterpret_cast<void *>(1),
                  nullptr};
  CUmodule m;
  ASSERT_EQ(cuModuleLoadDataEx(&m, ptx.c_str(), 4, opts, vals), CUDA_SUCCESS);
  float ms;
  std::memcpy(&ms, &vals[3], sizeof ms);
  EXPECT_GT(ms, 0.f);
  EXPECT_NE(std::string(infoLog).find("4 kernel"), std::string::npos) << infoLog;
  ASSERT_EQ(cuModuleUnload(m), CUDA_SUCCESS);
}

// A 64-byte ELF header: a cubin's (EM_CUDA) unless `machine` says otherwise.
static std::vector<unsigned char> elfHeader(uint16_t machine = 190) {
  std::vector<unsigned char> h(64, 0);
  const unsigned char ident[] = {0x7f, 'E', 'L', 'F', 2, 1, 1};
  std::memcpy(h.data(), ident, sizeof ident);
  std::memcpy(h.data() + 18, &machine, 2); // e_machine
  return h;
}

TEST_F(Module, CubinIsRefusedAsNoBinaryForGpu) {
  CUmodule m;
  EXPECT_EQ(cuModuleLoadData(&m, elfHeader().data()), CUDA_ERROR_NO_BINARY_FOR_GPU);
  CUlibrary l;
  EXPECT_EQ(cuLibraryLoadData(&l, elfHeader().data(), nullptr, nullptr, 0, nullptr, nullptr, 0),
            CUDA_ERROR_NO_BINARY_FOR_GPU);
}

// NVIDIA's driver reads the whole ELF header of an image and answers CUDA_ERROR_INVALID_IMAGE
// when it is not a cubin's (tests/gpu/answers/misuse.txt: "an ELF header only", 200 on an H200).
TEST_F(Module, ElfThatIsNoCubinIsAnInvalidImage) {
  CUmodule m;
  EXPECT_EQ(cuModuleLoadData(&m, elfHeader(62).data()), CUDA_ERROR_INVALID_IMAGE); // x86-64
  CUlibrary l;
  EXPECT_EQ(cuLibraryLoadData(&l, elfHeader(62).data(), nullptr, nullptr, 0, nullptr, nullptr, 0),
            CUDA_ERROR_INVALID_IMAGE);
}

// An ELF magic in the last bytes before unmapped memory: the header cannot be read, and the
// answer is an invalid image, not a crash.
TEST_F(Module, TruncatedElfHeaderBeforeUnmappedMemoryIsAnInvalidImage) {
  const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  auto *p = static_cast<unsigned char *>(
      mmap(nullptr, 2 * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0));
  ASSERT_NE(p, MAP_FAILED);
  ASSERT_EQ(mprotect(p + page, page, PROT_NONE), 0);
  unsigned char *image = p + page - 8;
  std::memcpy(image, elfHeader().data(), 8);
  CUmodule m;
  EXPECT_EQ(cuModuleLoadData(&m, image), CUDA_ERROR_INVALID_IMAGE);
  munmap(p, 2 * page);
}

class Launch : public Module {};

TEST_F(Launch, VectorAddThroughKernelParamsAndExtra) {
  CUmodule m;
  ASSERT_EQ(cuModuleLoadData(&m, ptx.c_str()), CUDA_SUCCESS);
  CUfunction f;
  ASSERT_EQ(cuModuleGetFunction(&f, m, "VecAdd_kernel"), CUDA_SUCCESS);
  const int n = 10000;
  std::vector<float> a(n), b(n), c(n);
  for (int i = 0; i < n; ++i) {
    a[i] = float(i);
    b[i] = float(2 * i);
  }
  CUdeviceptr da, db, dc;
  ASSERT_EQ(cuMemAlloc(&da, n * 4), CUDA_SUCCESS);
  ASSERT_EQ(cuMemAlloc(&db, n * 4), CUDA_SUCCESS);
  ASSERT_EQ(cuMemAlloc(&dc, n * 4), CUDA_SUCCESS);
  ASSERT_EQ(cuMemcpyHtoD(da, a.data(), n * 4), CUDA_SUCCESS);
  ASSERT_EQ(cuMemcpyHtoD(db, b.data(), n * 4), CUDA_SUCCESS);
  int nn = n;
  void *args[] = {&da, &db, &dc, &nn};
  ASSERT_EQ(cuLaunchKernel(f, (n + 255) / 256, 1, 1, 256, 1, 1, 0, nullptr, args, nullptr),
            CUDA_SUCCESS);
  ASSERT_EQ(cuMemcpyDtoH(c.data(), dc, n * 4), CUDA_SUCCESS);
  for (int i = 0; i < n; ++i)
    ASSERT_EQ(c[i], float(3 * i)) << i;

  // The same through a packed buffer.
  ASSERT_EQ(cuMemsetD32(dc, 0, n), CUDA_SUCCESS);
  struct {
    CUdeviceptr a, b, c;
    int n;
  } packed{da, db, dc, n};
  size_t size = sizeof packed;
  void *extra[] = {CU_LAUNCH_PARAM_BUFFER_POINTER, &packed, CU_LAUNCH_PARAM_BUFFER_SIZE, &size,
                   CU_LAUNCH_PARAM_END};
  ASSERT_EQ(cuLaunchKernel(f, (n + 127) / 128, 1, 1, 128, 1, 1, 0, nullptr, nullptr, extra),
            CUDA_SUCCESS);
  ASSERT_EQ(cuMemcpyDtoH(c.data(), dc, n * 4), CUDA_SUCCESS);
  for (int i = 0; i < n; ++i)
    ASSERT_EQ(c[i], float(3 * i)) << i;

  // Launch validation.
  EXPECT_EQ(cuLaunchKernel(f, 1, 1, 1, 1025, 1, 1, 0, nullptr, args, nullptr),
            CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cuLaunchKernel(f, 1, 1, 1, 32, 32, 2, 0, nullptr, args, nullptr),
            CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cuLaunchKernel(f, 0, 1, 1, 32, 1, 1, 0, nullptr, args, nullptr),
            CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cuLaunchKernel(f, 1, 70000, 1, 32, 1, 1, 0, nullptr, args, nullptr),
            CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cuLaunchKernel(f, 1, 1, 1, 32, 1, 1, 0, nullptr, nullptr, nullptr),
            CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cuLaunchKernel(f, 1, 1, 1, 32, 1, 1, 1 << 20, nullptr, args, nullptr),
            CUDA_ERROR_INVALID_VALUE);
  size_t small = 8;
  void *badExtra[] = {CU_LAUNCH_PARAM_BUFFER_POINTER, &packed, CU_LAUNCH_PARAM_BUFFER_SIZE, &small,
                      CU_LAUNCH_PARAM_END};
  EXPECT_EQ(cuLaunchKernel(f, 1, 1, 1, 32, 1, 1, 0, nullptr, nullptr, badExtra),
            CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cuLaunchKernel(nullptr, 1, 1, 1, 32, 1, 1, 0, nullptr, args, nullptr),
            CUDA_ERROR_INVALID_HANDLE);
  ASSERT_EQ(cuModuleUnload(m), CUDA_SUCCESS);
}

TEST_F(Launch, DynamicSharedMemoryReduction) {
  CUmodule m;
  ASSERT_EQ(cuModuleLoadData(&m, ptx.c_str()), CUDA_SUCCESS);
  CUfunction f;
  ASSERT_EQ(cuModuleGetFunction(&f, m, "reduce"), CUDA_SUCCESS);
  const unsigned n = 1 << 16, threads = 128, blocks = n / (2 * threads);
  std::vector<float> in(n), out(blocks);
  for (unsigned i = 0; i < n; ++i)
    in[i] = float(i % 13);
  CUdeviceptr din, dout;
  ASSERT_EQ(cuMemAlloc(&din, n * 4), CUDA_SUCCESS);
  ASSERT_EQ(cuMemAlloc(&dout, blocks * 4), CUDA_SUCCESS);
  ASSERT_EQ(cuMemcpyHtoD(din, in.data(), n * 4), CUDA_SUCCESS);
  unsigned nn = n;
  void *args[] = {&din, &dout, &nn};
  ASSERT_EQ(cuLaunchKernel(f, blocks, 1, 1, threads, 1, 1, threads * 4, nullptr, args, nullptr),
            CUDA_SUCCESS);
  ASSERT_EQ(cuCtxSynchronize(), CUDA_SUCCESS);
  ASSERT_EQ(cuMemcpyDtoH(out.data(), dout, blocks * 4), CUDA_SUCCESS);
  for (unsigned bk = 0; bk < blocks; ++bk) {
    float s = 0;
    for (unsigned i = bk * 2 * threads; i < (bk + 1) * 2 * threads; ++i)
      s += in[i];
    ASSERT_EQ(out[bk], s) << bk;
  }
  // Asking for more dynamic shared memory than the function allows fails; opting in allows it.
  EXPECT_EQ(cuLaunchKernel(f, 1, 1, 1, threads, 1, 1, 64 * 1024, nullptr, args, nullptr),
            CUDA_ERROR_INVALID_VALUE);
  ASSERT_EQ(cuFuncSetAttribute(f, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, 64 * 1024),
            CUDA_SUCCESS);
  EXPECT_EQ(cuLaunchKernel(f, 1, 1, 1, threads, 1, 1, 64 * 1024, nullptr, args, nullptr),
            CUDA_SUCCESS);
  EXPECT_EQ(cuFuncSetAttribute(f, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, 1 << 30),
            CUDA_ERROR_INVALID_VALUE);
  ASSERT_EQ(cuModuleUnload(m), CUDA_SUCCESS);
}

TEST_F(Launch, StreamLaunchesRunInOrderAndBadConfigurationsFailAtLaunch) {
  CUmodule m;
  ASSERT_EQ(cuModuleLoadData(&m, ptx.c_str()), CUDA_SUCCESS);
  CUfunction f;
  ASSERT_EQ(cuModuleGetFunction(&f, m, "VecAdd_kernel"), CUDA_SUCCESS);
  CUstream s;
  ASSERT_EQ(cuStreamCreate(&s, CU_STREAM_NON_BLOCKING), CUDA_SUCCESS);
  const int n = 4096;
  std::vector<float> a(n, 1.f), c(n);
  CUdeviceptr da, dc;
  ASSERT_EQ(cuMemAlloc(&da, n * 4), CUDA_SUCCESS);
  ASSERT_EQ(cuMemAlloc(&dc, n * 4), CUDA_SUCCESS);
  ASSERT_EQ(cuMemcpyHtoDAsync(da, a.data(), n * 4, s), CUDA_SUCCESS);
  int nn = n;
  void *args[] = {&da, &da, &dc, &nn};
  // Reported by the launch itself, not at the stream's next synchronisation.
  EXPECT_EQ(cuLaunchKernel(f, 1, 1, 1, 1025, 1, 1, 0, s, args, nullptr), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cuLaunchKernel(f, 1, 1, 1, 64, 1, 1, 1 << 20, s, args, nullptr),
            CUDA_ERROR_INVALID_VALUE);
  ASSERT_EQ(cuLaunchKernel(f, n / 256, 1, 1, 256, 1, 1, 0, s, args, nullptr), CUDA_SUCCESS);
  ASSERT_EQ(cuMemcpyDtoHAsync(c.data(), dc, n * 4, s), CUDA_SUCCESS);
  ASSERT_EQ(cuStreamSynchronize(s), CUDA_SUCCESS);
  for (int i = 0; i < n; ++i)
    ASSERT_EQ(c[i], 2.f) << i;
  CUcontext owner = nullptr;
  CUgreenCtx green = reinterpret_cast<CUgreenCtx>(0x1);
  ASSERT_EQ(cuStreamGetCtx_v2(s, &owner, &green), CUDA_SUCCESS);
  EXPECT_EQ(owner, ctx);
  EXPECT_EQ(green, nullptr);
  EXPECT_EQ(cuStreamGetCtx_v2(s, nullptr, nullptr), CUDA_ERROR_INVALID_VALUE);
  ASSERT_EQ(cuStreamDestroy(s), CUDA_SUCCESS);
  ASSERT_EQ(cuModuleUnload(m), CUDA_SUCCESS);
}

TEST_F(Launch, FunctionOfAnotherContextIsRejected) {
  CUmodule m;
  ASSERT_EQ(cuModuleLoadData(&m, ptx.c_str()), CUDA_SUCCESS);
  CUfunction f;
  ASSERT_EQ(cuModuleGetFunction(&f, m, "VecAdd_kernel"), CUDA_SUCCESS);
  CUcontext other;
  ASSERT_EQ(cuCtxCreate(&other, nullptr, 0, 0), CUDA_SUCCESS);
  CUdeviceptr p = 0;
  int n = 0;
  void *args[] = {&p, &p, &p, &n};
  // An H200 answers INVALID_HANDLE (tests/gpu/answers/misuse.txt).
  EXPECT_EQ(cuLaunchKernel(f, 1, 1, 1, 32, 1, 1, 0, nullptr, args, nullptr),
            CUDA_ERROR_INVALID_HANDLE);
  ASSERT_EQ(cuCtxDestroy(other), CUDA_SUCCESS);
  ASSERT_EQ(cuModuleUnload(m), CUDA_SUCCESS);
}

} // namespace
